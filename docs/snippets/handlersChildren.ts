/** docs/guide/handlers.md: children and owner references. */
import * as kopf from "kopf";
import { K8s, kind } from "kubernetes-fluent-client";

// block: children
kopf.on.create("kopfexamples", async function create_pod({ body }) {
  const pod: kopf.Obj = {
    apiVersion: "v1",
    kind: "Pod",
    spec: { containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }] },
  };
  kopf.adopt(pod, body); // owner reference, namespace, a name derived from the owner's, its labels
  const created = await K8s(kind.Pod).Create(pod as kind.Pod);
  return { pod: created.metadata?.name ?? null };
});

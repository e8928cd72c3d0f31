/**
 * Kopf's example 02: creating children. The create handler renders a Pod from the object's spec,
 * adopts it (owner reference, name, namespace and labels from the parent), creates it with
 * kubernetes-fluent-client, and stores the child's uid in the parent's status.
 */
import * as kopf from "kopf";
import { K8s, kind } from "kubernetes-fluent-client";

kopf.on.create("kopfexamples", async function create_fn({ spec, body }) {
  // Render the pod with some spec fields used in the template.
  const duration = typeof spec.duration === "string" ? spec.duration : "0";
  const field = typeof spec.field === "string" ? spec.field : "default-value";
  const doc: kopf.Obj = {
    apiVersion: "v1",
    kind: "Pod",
    spec: {
      containers: [
        {
          name: "the-only-one",
          image: "busybox",
          command: ["sh", "-x", "-c"],
          args: [`echo "FIELD=$FIELD"\nsleep ${duration}\n`],
          env: [{ name: "FIELD", value: field }],
        },
      ],
    },
  };

  // Make it our child: assign the namespace, name, labels, owner references, etc.
  kopf.adopt(doc, body);

  // Actually create an object by requesting the Kubernetes API.
  const pod = await K8s(kind.Pod).Create(doc as kind.Pod);

  // Update the parent's status.
  return { children: [pod.metadata?.uid] };
});

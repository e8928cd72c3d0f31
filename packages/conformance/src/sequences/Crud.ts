/** Create, get, replace and delete of ConfigMaps, with conflicts, dry runs and invalid objects. */
import type { Sequence } from "../Interaction.ts";
import { cms, configMap, del, get, namespace, post, put } from "./internal/steps.ts";

/** The CRUD sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-crud-${run}`;
  const cm = configMap("one", { a: "1" }, { labels: { app: "x" }, annotations: { note: "first" } });
  return {
    name: "crud",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create", cms(ns), cm),
      get("get", cms(ns, "one")),
      post("create-again", cms(ns), cm),
      get("get-missing", cms(ns, "two")),
      put("replace", cms(ns, "one"), { ...cm, data: { a: "2" } }),
      put("replace-stale", cms(ns, "one"), { ...cm, metadata: { ...cm.metadata, resourceVersion: "1" } }),
      put("replace-other-name", cms(ns, "one"), configMap("other")),
      put("replace-missing", cms(ns, "absent"), configMap("absent")),
      post("create-generated", cms(ns), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { generateName: "gen-" },
      }),
      post("create-invalid-name", cms(ns), configMap("Not_Valid")),
      post("create-no-name", cms(ns), { apiVersion: "v1", kind: "ConfigMap", metadata: {} }),
      post("create-bad-data-key", cms(ns), configMap("badkey", { "not a key": "x" })),
      post("create-bad-label", cms(ns), configMap("badlabel", {}, { labels: { "bad key!": "x" } })),
      post("create-wrong-namespace", cms(ns), configMap("wrongns", {}, { namespace: "elsewhere" })),
      post("create-missing-namespace", cms(`c-absent-${run}`), configMap("x")),
      post("create-dry-run", `${cms(ns)}?dryRun=All`, configMap("dry")),
      get("get-dry-run", cms(ns, "dry")),
      post("create-bad-dry-run", `${cms(ns)}?dryRun=Some`, configMap("dry2")),
      post("create-immutable", cms(ns), { ...configMap("frozen", { k: "v" }), immutable: true }),
      put("replace-immutable", cms(ns, "frozen"), {
        ...configMap("frozen", { k: "changed" }),
        immutable: true,
      }),
      del("delete", cms(ns, "one")),
      get("get-deleted", cms(ns, "one")),
      del("delete-missing", cms(ns, "one")),
      del("delete-dry-run", `${cms(ns, "frozen")}?dryRun=All`),
      get("get-after-dry-delete", cms(ns, "frozen")),
      del("delete-uid-precondition", cms(ns, "frozen"), {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
      }),
      del("delete-rv-precondition", cms(ns, "frozen"), {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions: { resourceVersion: "1" },
      }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};

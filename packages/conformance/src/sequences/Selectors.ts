/** Label and field selectors on lists, namespaced and cluster-wide, including malformed ones. */
import type { Sequence } from "../Interaction.ts";
import { cms, configMap, del, get, names, namespace, post } from "./internal/steps.ts";

const objects: ReadonlyArray<[string, Record<string, string>]> = [
  ["a1", { app: "a", tier: "front" }],
  ["a2", { app: "a", tier: "back" }],
  ["b1", { app: "b", tier: "front" }],
  ["c1", { app: "c" }],
  ["n1", { other: "yes" }],
];

/** The selectors sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-sel-${run}`;
  const list = (name: string, query: string) => get(name, `${cms(ns)}?${query}`, { select: names });
  return {
    name: "selectors",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      ...objects.map(([name, labels]) =>
        post(`create-${name}`, cms(ns), configMap(name, {}, { labels: { ...labels, run } })),
      ),
      list("all", ""),
      list("equals", "labelSelector=app%3Da"),
      list("double-equals", "labelSelector=app%3D%3Da"),
      list("not-equals", "labelSelector=app!%3Da"),
      list("in", "labelSelector=app%20in%20(a%2Cb)"),
      list("notin", "labelSelector=app%20notin%20(a)"),
      list("exists", "labelSelector=tier"),
      list("not-exists", "labelSelector=!tier"),
      list("and", "labelSelector=app%3Da%2Ctier%3Dfront"),
      list("no-match", "labelSelector=app%3Dz"),
      list("bad-label-selector", "labelSelector=app%3D%3D%3Da"),
      list("bad-label-value", "labelSelector=app%3Dnot%20valid"),
      list("field-name", "fieldSelector=metadata.name%3Da2"),
      list("field-name-not", "fieldSelector=metadata.name!%3Da2"),
      list("field-namespace", `fieldSelector=metadata.namespace%3D${ns}`),
      list("field-and-label", "fieldSelector=metadata.name!%3Da1&labelSelector=app%3Da"),
      list("field-unsupported", "fieldSelector=data.key%3Dx"),
      list("field-malformed", "fieldSelector=metadata.name"),
      get("cluster-wide", `/api/v1/configmaps?labelSelector=run%3D${run}%2Capp%3Da`, { select: names }),
      get("namespaces-by-name", `/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`, { select: names }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};

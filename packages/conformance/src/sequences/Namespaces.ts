/** Namespaces: creation, conflicts, field selectors, and deletion through Terminating to gone. */
import type { Sequence } from "../Interaction.ts";
import { del, get, gone, names, namespace, poll, post } from "./internal/steps.ts";

/** The namespaces sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-ns-${run}`;
  return {
    name: "namespaces",
    steps: [
      post("create", "/api/v1/namespaces", namespace(ns, { suite: run })),
      get("get", `/api/v1/namespaces/${ns}`),
      post("create-again", "/api/v1/namespaces", namespace(ns)),
      post("create-invalid-name", "/api/v1/namespaces", namespace(`Bad_${run}`)),
      post("create-without-name", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: {},
      }),
      get("list-by-name", `/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`, { select: names }),
      get("list-by-label", `/api/v1/namespaces?labelSelector=suite%3D${run}`, { select: names }),
      get("get-missing", `/api/v1/namespaces/c-missing-${run}`),
      del("delete", `/api/v1/namespaces/${ns}`),
      poll("deleted", `/api/v1/namespaces/${ns}`, gone),
      del("delete-missing", `/api/v1/namespaces/${ns}`),
    ],
  };
};

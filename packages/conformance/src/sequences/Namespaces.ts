/** Namespaces: creation, conflicts, field selectors, and deletion through Terminating to gone. */
import type { Select, Sequence } from "../Interaction.ts";
import { del, get, gone, names, namespace, poll, post } from "./internal/steps.ts";

/** What is comparable of the published root CA ConfigMap (the certificates differ by nature). */
const rootCa: Select = (body) => {
  const cm = body as {
    metadata?: {
      name?: string;
      labels?: unknown;
      annotations?: unknown;
      managedFields?: ReadonlyArray<{ manager?: string; operation?: string }>;
    };
    data?: Record<string, string>;
  };
  return {
    name: cm.metadata?.name,
    labels: cm.metadata?.labels,
    annotations: cm.metadata?.annotations,
    managers: (cm.metadata?.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`),
    keys: Object.keys(cm.data ?? {}),
    isPem: (cm.data?.["ca.crt"] ?? "").startsWith("-----BEGIN CERTIFICATE-----"),
  };
};

/** The namespaces sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-ns-${run}`;
  return {
    name: "namespaces",
    steps: [
      post("create", "/api/v1/namespaces", namespace(ns, { suite: run })),
      get("get", `/api/v1/namespaces/${ns}`),
      poll(
        "root-ca-published",
        `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`,
        (status) => status === 200,
        10_000,
        { select: rootCa },
      ),
      get("root-ca", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`, { select: rootCa }),
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

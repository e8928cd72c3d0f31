/** Limits and bad input: body and object sizes, malformed bodies, wrong kinds and methods. */
import type { Sequence } from "../Interaction.ts";
import { cms, configMap, del, get, namespace, post, put, raw } from "./internal/steps.ts";

/** The limits sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-limit-${run}`;
  return {
    name: "limits",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      raw("malformed-json", "POST", cms(ns), '{"apiVersion": "v1",'),
      raw("empty-body", "POST", cms(ns), ""),
      raw("not-an-object", "POST", cms(ns), "[1, 2, 3]"),
      raw(
        "yaml-body",
        "POST",
        cms(ns),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\n",
        "application/yaml",
      ),
      raw("unsupported-content-type", "POST", cms(ns), "{}", "text/plain"),
      post("wrong-kind", cms(ns), { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } }),
      post("wrong-api-version", cms(ns), { apiVersion: "v2", kind: "ConfigMap", metadata: { name: "v2" } }),
      post("no-kind", cms(ns), { apiVersion: "v1", metadata: { name: "nokind" } }),
      post("unknown-field", cms(ns), { ...configMap("unknown"), spec: { x: 1 } }),
      post("unknown-field-strict", `${cms(ns)}?fieldValidation=Strict`, {
        ...configMap("strict"),
        spec: { x: 1 },
      }),
      post("unknown-field-warn", `${cms(ns)}?fieldValidation=Warn`, { ...configMap("warn"), spec: { x: 1 } }),
      post("bad-field-validation", `${cms(ns)}?fieldValidation=Loud`, configMap("loud")),
      post("name-too-long", cms(ns), configMap(`n${"x".repeat(253)}`)),
      post("label-value-too-long", cms(ns), configMap("longlabel", {}, { labels: { k: "v".repeat(64) } })),
      post(
        "annotations-too-large",
        cms(ns),
        configMap("bigann", {}, { annotations: { big: "a".repeat(262_145) } }),
      ),
      post("data-too-large", cms(ns), configMap("bigdata", { big: "d".repeat(1_048_577) })),
      raw(
        "body-too-large",
        "POST",
        cms(ns),
        JSON.stringify(configMap("huge", { big: "h".repeat(3 * 1024 * 1024 + 1) })),
      ),
      post("data-and-binary-overlap", cms(ns), {
        ...configMap("overlap", { k: "v" }),
        binaryData: { k: "dg==" },
      }),
      post("binary-not-base64", cms(ns), { ...configMap("nob64", {}), binaryData: { k: "!!!" } }),
      put("put-collection", cms(ns), configMap("x")),
      post("post-to-object", cms(ns, "x"), configMap("x")),
      get("unknown-resource", `/api/v1/namespaces/${ns}/gizmos`),
      get("unknown-subresource", `${cms(ns, "x")}/status`),
      post("create-namespace-with-finalizer-field", "/api/v1/namespaces", {
        ...namespace(`c-lim2-${run}`),
        spec: { finalizers: ["example.com/custom"] },
      }),
      get("namespace-with-finalizer", `/api/v1/namespaces/c-lim2-${run}`),
      del("delete-namespace-with-finalizer", `/api/v1/namespaces/c-lim2-${run}`),
      post("event", `/api/v1/namespaces/${ns}/events`, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `ev-${run}` },
        involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: ns },
        reason: "Testing",
        message: "conformance",
        type: "Normal",
        source: { component: "kopf" },
        firstTimestamp: "2026-01-01T00:00:00Z",
        lastTimestamp: "2026-01-01T00:00:00Z",
        count: 1,
      }),
      post("event-invalid", `/api/v1/namespaces/${ns}/events`, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `ev2-${run}` },
        involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: "elsewhere" },
        reason: "Testing",
        type: "Normal",
      }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};

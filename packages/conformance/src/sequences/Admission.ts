/**
 * Admission webhooks: the API server calls the suite's webhook server over TLS. Configurations
 * are created (and defaulted by the server), then a dry-run probe waits until they are in
 * effect; after that, mutation, denial with a warning, updates, dry runs, objects outside the
 * namespace selector, and an unreachable webhook under failurePolicy Fail and Ignore.
 */
import type { Sequence } from "../Interaction.ts";
import type { WebhookServer } from "../WebhookServer.ts";
import { cms, configMap, del, MERGE, namespace, patch, poll, post } from "./internal/steps.ts";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

const rule = {
  operations: ["CREATE", "UPDATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["configmaps"],
  scope: "Namespaced",
};

const annotated = (_status: number, body: unknown) =>
  (body as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.[
    "conformance/mutated"
  ] === "yes";

/** The admission sequence against a running webhook server. */
export const sequence = (run: string, webhook: WebhookServer): Sequence => {
  const ns = `c-adm-${run}`;
  const other = `c-adm2-${run}`;
  const selector = { matchLabels: { "conformance-webhooks": run } };
  const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    clientConfig: { url: `${webhook.url}${path}`, caBundle: webhook.caBundle },
    rules: [rule],
    namespaceSelector: selector,
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 5,
    ...extra,
  });
  const broken = (policy: string) => ({
    name: `broken-${policy.toLowerCase()}.conformance.kopf.dev`,
    clientConfig: { url: "https://127.0.0.1:1/nothing", caBundle: webhook.caBundle },
    rules: [rule],
    namespaceSelector: selector,
    objectSelector: { matchLabels: { broken: policy } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: policy,
    timeoutSeconds: 2,
  });
  return {
    name: "admission",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns, { "conformance-webhooks": run })),
      post("other-namespace", "/api/v1/namespaces", namespace(other)),
      post("create-validating", `${ADMISSION}/validatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: `c-validate-${run}` },
        webhooks: [hook("validate.conformance.kopf.dev", "/validate"), broken("Fail"), broken("Ignore")],
      }),
      post("create-mutating", `${ADMISSION}/mutatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: `c-mutate-${run}` },
        webhooks: [hook("mutate.conformance.kopf.dev", "/mutate", { reinvocationPolicy: "Never" })],
      }),
      post("create-invalid-configuration", `${ADMISSION}/validatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: `c-invalid-${run}` },
        webhooks: [
          {
            name: "no-dots",
            clientConfig: { url: "http://insecure" },
            sideEffects: "Maybe",
            admissionReviewVersions: [],
          },
        ],
      }),
      poll("validating-in-effect", `${cms(ns)}?dryRun=All`, (status) => status !== 201, 30_000, {
        method: "POST",
        body: configMap("probe", {}, { labels: { deny: "yes" } }),
      }),
      poll("mutating-in-effect", `${cms(ns)}?dryRun=All`, annotated, 30_000, {
        method: "POST",
        body: configMap("probe2"),
      }),
      post("create-mutated", cms(ns), configMap("allowed")),
      post("create-denied", cms(ns), configMap("denied", {}, { labels: { deny: "yes" } })),
      patch("update-denied", cms(ns, "allowed"), MERGE, { metadata: { labels: { deny: "yes" } } }),
      patch("update-allowed", cms(ns, "allowed"), MERGE, { data: { changed: "yes" } }),
      post("dry-run-mutated", `${cms(ns)}?dryRun=All`, configMap("dry")),
      post("outside-selector", cms(other), configMap("untouched", {}, { labels: { deny: "yes" } })),
      post("unreachable-fail", cms(ns), configMap("broken-fail", {}, { labels: { broken: "Fail" } })),
      post("unreachable-ignore", cms(ns), configMap("broken-ignore", {}, { labels: { broken: "Ignore" } })),
      del("delete-validating", `${ADMISSION}/validatingwebhookconfigurations/c-validate-${run}`),
      del("delete-mutating", `${ADMISSION}/mutatingwebhookconfigurations/c-mutate-${run}`),
      // Both removals in effect: the real server drops each configuration from its cache on its
      // own schedule, so the validating one may be gone while the mutating one still applies.
      poll(
        "validating-removed",
        `${cms(ns)}?dryRun=All`,
        (status, body) => status === 201 && !annotated(status, body),
        30_000,
        {
          method: "POST",
          body: configMap("probe3", {}, { labels: { deny: "yes" } }),
        },
      ),
      del("cleanup", `/api/v1/namespaces/${ns}`),
      del("cleanup-other", `/api/v1/namespaces/${other}`),
    ],
  };
};

/**
 * What each server sends admission webhooks, made comparable through the echoing webhooks
 * (internal/echo.ts): `request.options` of creates, dry runs, patches, replaces, server-side
 * applies and deletes (from the body, or from the query when there is no body); the generation mutating and validating webhooks see on a custom resource's create and
 * updates (and that a webhook's own spec change bumps it); what survives of a webhook's changes
 * to a status write and to the status in a main write; the key order of labels and
 * annotations; the user's groups; warnings from both phases (on success, denial, 409, delete and
 * past the header budget); and the texts of webhooks' failing JSON patches. Runs only with a
 * webhook server that answers at the echoing paths.
 */
import type { Sequence } from "../Interaction.ts";
import type { WebhookServer } from "../WebhookServer.ts";
import * as Echo from "./internal/echo.ts";
import {
  APPLY,
  cms,
  configMap,
  del,
  established,
  MERGE,
  namespace,
  patch,
  poll,
  post,
  put,
} from "./internal/steps.ts";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GROUP = "conformance.kopf.dev";

/** Both echoing webhooks are in effect: the validating denial quotes the mutating record. */
const echoing = (status: number, body: unknown): boolean =>
  status === 403 && String((body as { message?: unknown }).message ?? "").includes('"mutating":{');

/** The echo sequence against a webhook server answering at the echoing paths. */
export const sequence = (run: string, webhook: WebhookServer): Sequence => {
  const ns = `c-echo-${run}`;
  const plural = `echoes${run}`;
  const crd = `${plural}.${GROUP}`;
  const crs = `/apis/${GROUP}/v1/namespaces/${ns}/${plural}`;
  const echo = { echo: "yes" };
  const cm = (name: string, labels: Record<string, string> = {}, annotations?: Record<string, string>) =>
    configMap(
      name,
      { key: "value" },
      { labels: { ...echo, ...labels }, ...(annotations ? { annotations } : {}) },
    );
  const cr = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: `${GROUP}/v1`,
    kind: `Echo${run}`,
    metadata: { name, labels: { ...echo, ...labels } },
    spec: { replicas: 1 },
  });
  const rules = (operations: ReadonlyArray<string>, resources: ReadonlyArray<string>) => [
    { operations, apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], scope: "Namespaced" },
    { operations, apiGroups: [GROUP], apiVersions: ["v1"], resources, scope: "Namespaced" },
  ];
  const hook = (
    name: string,
    path: string,
    operations: ReadonlyArray<string>,
    resources: ReadonlyArray<string> = [plural],
  ) => ({
    name,
    clientConfig: { url: `${webhook.url}${path}`, caBundle: webhook.caBundle },
    rules: rules(operations, resources),
    namespaceSelector: { matchLabels: { "conformance-echo": run } },
    objectSelector: { matchLabels: echo },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 5,
  });
  const dryRun = `${cms(ns)}?dryRun=All`;
  return {
    name: "admission-echo",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns, { "conformance-echo": run })),
      post("create-crd", CRDS, {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: crd },
        spec: {
          group: GROUP,
          scope: "Namespaced",
          names: { plural, singular: `echo${run}`, kind: `Echo${run}` },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      }),
      poll("crd-established", `${CRDS}/${crd}`, established),
      post("create-mutating", `${ADMISSION}/mutatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: `c-echo-${run}` },
        webhooks: [
          hook(
            "mutate.echo.conformance.kopf.dev",
            Echo.MUTATE,
            ["CREATE", "UPDATE"],
            [plural, `${plural}/status`],
          ),
        ],
      }),
      post("create-validating", `${ADMISSION}/validatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: `c-echo-${run}` },
        webhooks: [hook("validate.echo.conformance.kopf.dev", Echo.VALIDATE, ["CREATE", "UPDATE", "DELETE"])],
      }),
      poll("in-effect", dryRun, echoing, 30_000, {
        method: "POST",
        body: cm("probe", { "echo-deny": "yes" }),
      }),
      post(
        "create",
        `${cms(ns)}?fieldManager=fm1&fieldValidation=Strict`,
        cm("one", { zz: "1", aa: "2" }, { zeta: "1", alpha: "2", mid: "3" }),
      ),
      post("create-dry-run", `${dryRun}&fieldManager=fm1`, cm("dry")),
      post("create-denied", cms(ns), cm("denied", { "echo-deny": "yes" }, { zeta: "1", alpha: "2" })),
      post("create-exists", cms(ns), cm("one")),
      patch("patch", `${cms(ns, "one")}?fieldManager=fm2`, MERGE, { data: { k: "v" } }),
      patch("patch-dry-run", `${cms(ns, "one")}?fieldManager=fm2&dryRun=All`, MERGE, { data: { d: "v" } }),
      put("replace", `${cms(ns, "one")}?fieldManager=fm3`, cm("one", { zz: "1" })),
      patch("apply-create", `${cms(ns, "ssa")}?fieldManager=fm4`, APPLY, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "ssa", labels: echo },
      }),
      patch("apply-force", `${cms(ns, "ssa")}?fieldManager=fm4&force=true`, APPLY, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "ssa", labels: echo },
        data: { a: "b" },
      }),
      patch("update-denied", cms(ns, "one"), MERGE, { metadata: { labels: { "echo-deny": "yes" } } }),
      post("long-warnings", dryRun, cm("long", { "echo-long": "yes" })),
      ...Object.keys(Echo.FAILING_PATCHES).map((kind) =>
        post(`failing-patch-${kind}`, dryRun, cm(`bad-${kind}`, { "echo-patch": kind })),
      ),
      post("cr-create", crs, cr("k")),
      post("cr-create-denied", crs, cr("k2", { "echo-deny": "yes" })),
      patch("cr-spec", `${crs}/k`, MERGE, { spec: { replicas: 2 } }),
      patch("cr-spec-denied", `${crs}/k`, MERGE, {
        spec: { replicas: 3 },
        metadata: { labels: { "echo-deny": "yes" } },
      }),
      patch("cr-webhook-spec", `${crs}/k`, MERGE, { metadata: { labels: { "echo-spec": "yes" } } }),
      patch("cr-label-only", `${crs}/k`, MERGE, { metadata: { labels: { other: "x" } } }),
      // After mutating admission, a status write keeps only the status, a main write the old status.
      patch("cr-status", `${crs}/k/status`, MERGE, { status: { phase: "Running" } }),
      patch("cr-main-meddles-status", `${crs}/k`, MERGE, { metadata: { labels: { "echo-status": "yes" } } }),
      patch("cr-status-meddled", `${crs}/k/status`, MERGE, { status: { phase: "Done" } }),
      del("delete", cms(ns, "one")),
      post("create-held", cms(ns), cm("held", { "echo-deny-delete": "yes" })),
      // A body's options are all there are: the query's dryRun next to it is ignored.
      del("delete-denied", `${cms(ns, "held")}?dryRun=All`, {
        propagationPolicy: "Background",
        gracePeriodSeconds: 0,
      }),
      del(
        "delete-denied-query",
        `${cms(ns, "held")}?dryRun=All&propagationPolicy=Background&gracePeriodSeconds=0`,
      ),
      del("delete-mutating", `${ADMISSION}/mutatingwebhookconfigurations/c-echo-${run}`),
      del("delete-validating", `${ADMISSION}/validatingwebhookconfigurations/c-echo-${run}`),
      del("cleanup-crd", `${CRDS}/${crd}`),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};

/**
 * The echo sequence when the webhook server answers at the echoing paths, else none.
 *
 * @example
 * ```ts
 * const sequences = [...AdmissionEcho.ifEchoing("k3x9a", webhook)]
 * ```
 */
export const ifEchoing = (
  run: string,
  webhook: (WebhookServer & Echo.Echoing) | undefined,
): ReadonlyArray<Sequence> => (webhook?.echoes === true ? [sequence(run, webhook)] : []);

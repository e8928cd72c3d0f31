/**
 * The echoing admission webhooks of the admission sequence: they show, in what the API server
 * answers the client, what each server sent its webhooks, so the suite can compare it. The
 * mutating one (`/echo/mutate`) records what it saw in the annotation `conformance/seen` (the
 * operation, `request.options`, the object's generation, dry run, the order of label and
 * annotation keys, the user's groups, the subresource) and can be told by labels to patch the
 * spec or the status, to answer with a failing patch, or to give many long warnings; the validating one (`/echo/validate`)
 * denies objects labelled `echo-deny=yes` (or their deletion, labelled `echo-deny-delete=yes`) with a
 * message that is what it saw. Both give warnings,
 * one text of which they share. Pure: AdmissionReview in, AdmissionReview out.
 */

/** A webhook server that answers at the echoing webhooks' paths says so. */
export interface Echoing {
  readonly echoes?: boolean;
}

/** The paths the echoing webhooks answer at. */
export const MUTATE = "/echo/mutate";
export const VALIDATE = "/echo/validate";

/** The annotation the mutating webhook records what it saw in. */
export const SEEN = "conformance/seen";

/** The warning both webhooks give (a server sends it once per request). */
export const SHARED_WARNING = "conformance: shared warning";

/** Failing JSON patches, chosen by the `echo-patch` label (their texts are compared). */
export const FAILING_PATCHES: Readonly<Record<string, ReadonlyArray<unknown>>> = {
  remove: [{ op: "remove", path: "/data/nothing" }],
  add: [{ op: "add", path: "/nothing/x", value: 1 }],
  replace: [{ op: "replace", path: "/metadata/nothing/x", value: "x" }],
  index: [
    { op: "add", path: "/metadata/finalizers", value: ["example.com/a"] },
    { op: "add", path: "/metadata/finalizers/5", value: "example.com/b" },
  ],
  move: [{ op: "move", from: "/data/nothing", path: "/data/x" }],
  test: [{ op: "test", path: "/data/key", value: "other" }],
  kind: [{ op: "frobnicate", path: "/data" }],
};

type Json = Readonly<Record<string, unknown>>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const record = (value: unknown): Json => (isRecord(value) ? value : {});

/** What a webhook saw of a request, as it reports it. */
const seen = (request: Json) => {
  const object = record(request.object ?? request.oldObject);
  const metadata = record(object.metadata);
  return {
    operation: request.operation,
    subResource: request.subResource ?? null,
    options: request.options ?? null,
    dryRun: request.dryRun,
    generation: record(record(request.object).metadata).generation ?? null,
    labelKeys: Object.keys(record(metadata.labels)),
    annotationKeys: Object.keys(record(metadata.annotations)),
    groups: record(request.userInfo).groups ?? null,
  };
};

const patched = (ops: ReadonlyArray<unknown>) => ({
  patchType: "JSONPatch",
  patch: Buffer.from(JSON.stringify(ops)).toString("base64"),
});

const mutate = (request: Json): Json => {
  const object = record(request.object);
  const metadata = record(object.metadata);
  const labels = record(metadata.labels);
  if (typeof labels["echo-long"] === "string")
    return {
      warnings: Array.from({ length: 20 }, (_, i) => String.fromCharCode(97 + i).repeat(300)),
    };
  const warnings = [SHARED_WARNING, "conformance: mutating warning"];
  const failing =
    typeof labels["echo-patch"] === "string" ? FAILING_PATCHES[labels["echo-patch"]] : undefined;
  if (failing !== undefined) return { warnings, ...patched(failing) };
  if (request.object === null || request.object === undefined) return { warnings };
  const annotations = [
    metadata.annotations === undefined || metadata.annotations === null
      ? { op: "add", path: "/metadata/annotations", value: { [SEEN]: JSON.stringify(seen(request)) } }
      : {
          op: "add",
          path: `/metadata/annotations/${SEEN.replace("/", "~1")}`,
          value: JSON.stringify(seen(request)),
        },
  ];
  const spec = labels["echo-spec"] === "yes" ? [{ op: "add", path: "/spec/paused", value: true }] : [];
  const status =
    labels["echo-status"] !== "yes"
      ? []
      : isRecord(object.status)
        ? [{ op: "add", path: "/status/meddled", value: true }]
        : [{ op: "add", path: "/status", value: { meddled: true } }];
  return { warnings, ...patched([...annotations, ...spec, ...status]) };
};

const validate = (request: Json): Json => {
  const object = record(request.object ?? request.oldObject);
  const metadata = record(object.metadata);
  const warnings = [SHARED_WARNING, "conformance: validating warning"];
  const labels = record(metadata.labels);
  const denied =
    labels["echo-deny"] === "yes" || (request.operation === "DELETE" && labels["echo-deny-delete"] === "yes");
  if (!denied) return { warnings };
  const mutating = record(metadata.annotations)[SEEN];
  return {
    allowed: false,
    warnings,
    status: {
      code: 403,
      message: JSON.stringify({
        validating: seen(request),
        mutating: typeof mutating === "string" ? JSON.parse(mutating) : null,
      }),
    },
  };
};

/**
 * Whether `path` (without its query) is one of the echoing webhooks'.
 *
 * @example
 * handles("/echo/mutate") // true
 */
export const handles = (path: string): boolean => path === MUTATE || path === VALIDATE;

/**
 * The AdmissionReview v1 answer of the echoing webhook at `path` to `review`.
 *
 * @example
 * answer("/echo/validate", { request: { uid: "u", object: { metadata: {} } } })
 * // { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "u", allowed: true, warnings: [...] } }
 */
export const answer = (path: string, review: unknown): unknown => {
  const request = record(record(review).request);
  const response = path === MUTATE ? mutate(request) : validate(request);
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: request.uid ?? "", allowed: true, ...response },
  };
};

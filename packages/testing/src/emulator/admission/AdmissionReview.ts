/**
 * AdmissionReview v1 as kube-apiserver speaks it to webhooks: the request document it sends, the
 * checks it makes on the answer (apiVersion, kind, uid, patch type), and the `Status` objects it
 * answers clients with when a webhook denies a request or cannot be called. Pure functions.
 */
import { Result } from "effect";
import type { AdmissionRequest } from "../api/Admission.ts";
import type * as JsonPatch from "../api/JsonPatch.ts";
import type { Status } from "../api/Status.ts";

type Json = Readonly<Record<string, unknown>>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The AdmissionReview versions the emulator speaks, in preference order. */
export const supportedVersions = ["v1", "v1beta1"] as const;

/**
 * The AdmissionReview document sent to a webhook (`apiVersion` is `admission.k8s.io/<version>`);
 * empty optional strings and absent objects are left out as Go's `omitempty` does.
 */
export const requestDocument = (uid: string, request: AdmissionRequest, version: string): Json => ({
  apiVersion: `admission.k8s.io/${version}`,
  kind: "AdmissionReview",
  request: {
    uid,
    kind: request.kind,
    resource: request.resource,
    ...(request.subResource === "" ? {} : { subResource: request.subResource }),
    requestKind: request.requestKind,
    requestResource: request.requestResource,
    ...(request.requestSubResource === "" ? {} : { requestSubResource: request.requestSubResource }),
    ...(request.name === "" ? {} : { name: request.name }),
    ...(request.namespace === "" ? {} : { namespace: request.namespace }),
    operation: request.operation,
    userInfo: request.userInfo,
    ...(request.object === undefined || request.object === null ? {} : { object: request.object }),
    ...(request.oldObject === undefined || request.oldObject === null
      ? {}
      : { oldObject: request.oldObject }),
    dryRun: request.dryRun,
    ...(request.options === undefined || request.options === null ? {} : { options: request.options }),
  },
});

/** What a webhook answered, once checked. */
export interface Verdict {
  readonly allowed: boolean;
  readonly result: Json | undefined;
  readonly patch: ReadonlyArray<JsonPatch.Operation>;
  readonly warnings: ReadonlyArray<string>;
}

/**
 * Checks a webhook's answer as the API server does; a failure is the reason the call counts as
 * failed (and is then handled per the webhook's failurePolicy).
 */
export const verifyResponse = (
  uid: string,
  version: string,
  mutating: boolean,
  document: unknown,
): Result.Result<Verdict, string> => {
  const expected = `admission.k8s.io/${version}`;
  if (!isRecord(document)) return Result.fail("the webhook's response is not a JSON object");
  if (document.apiVersion !== expected || document.kind !== "AdmissionReview") {
    return Result.fail(
      `expected webhook response of ${expected}, Kind=AdmissionReview, got ${String(document.apiVersion ?? "")}, Kind=${String(document.kind ?? "")}`,
    );
  }
  const response = document.response;
  if (!isRecord(response)) return Result.fail("webhook response was absent");
  if (response.uid !== uid)
    return Result.fail(`expected response.uid="${uid}", got "${String(response.uid ?? "")}"`);
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((warning): warning is string => typeof warning === "string")
    : [];
  let patch: ReadonlyArray<JsonPatch.Operation> = [];
  if (typeof response.patch === "string" && response.patch.length > 0) {
    if (!mutating) return Result.fail("validating webhook may not return response.patch");
    if (response.patchType === undefined)
      return Result.fail("webhook returned response.patch but not response.patchType");
    if (response.patchType !== "JSONPatch") {
      return Result.fail(`webhook returned invalid response.patchType of "${String(response.patchType)}"`);
    }
    const decoded = decodePatch(response.patch);
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure);
    patch = decoded.success;
  }
  return Result.succeed({
    allowed: response.allowed === true,
    result: isRecord(response.status) ? response.status : undefined,
    patch,
    warnings,
  });
};

const decodePatch = (base64: string): Result.Result<ReadonlyArray<JsonPatch.Operation>, string> => {
  const text = Buffer.from(base64, "base64").toString("utf8");
  return Result.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => `the webhook's patch is not JSON: ${String(error)}`,
  }).pipe(
    Result.flatMap((value) =>
      Array.isArray(value) &&
      value.every((op) => isRecord(op) && typeof op.op === "string" && typeof op.path === "string")
        ? Result.succeed(value as ReadonlyArray<JsonPatch.Operation>)
        : Result.fail("the webhook's patch is not a JSON patch (a list of operations)"),
    ),
  );
};

/**
 * The `Status` a client gets when webhook `name` denies a request: the webhook's own status
 * (code, reason, details) with the message prefixed by `admission webhook "name" denied the
 * request`; codes below 400 become 400.
 */
export const denialStatus = (name: string, result: Json | undefined): Status => {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = typeof result?.code === "number" && result.code >= 400 ? result.code : 400;
  const message =
    typeof result?.message === "string" && result.message.length > 0 ? result.message : undefined;
  const reason = typeof result?.reason === "string" && result.reason.length > 0 ? result.reason : undefined;
  const text =
    message !== undefined
      ? `${deniedBy}: ${message}`
      : reason !== undefined
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: text,
    ...(reason === undefined ? {} : { reason: reason as Status["reason"] & string }),
    ...(isRecord(result?.details) ? { details: result.details as Status["details"] & object } : {}),
    code,
  };
};

/** The 500 `Status` of a webhook that could not be called under failurePolicy Fail. */
export const callFailureStatus = (name: string, reason: string): Status => {
  const message = `failed calling webhook "${name}": ${reason}`;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `Internal error occurred: ${message}`,
    reason: "InternalError",
    details: { causes: [{ message }] },
    code: 500,
  };
};

/** The 400 `Status` for a dry-run request reaching a webhook that may have side effects. */
export const dryRunUnsupportedStatus = (name: string): Status => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: `admission webhook "${name}" does not support dry run`,
  reason: "BadRequest",
  code: 400,
});

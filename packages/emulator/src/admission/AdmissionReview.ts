/**
 * AdmissionReview v1 as kube-apiserver speaks it to webhooks: the request document it sends, the
 * checks it makes on the answer (apiVersion, kind, uid, patch type), and the `Status` objects it
 * answers clients with when a webhook denies a request or cannot be called. Pure functions.
 */
import * as Result from "effect/Result";
import type { AdmissionRequest } from "../api/Admission.ts";
import * as JsonPatch from "../api/JsonPatch.ts";
import type { Status } from "../api/Status.ts";

type Json = Readonly<Record<string, unknown>>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The AdmissionReview versions the emulator speaks, in preference order. */
export const supportedVersions = ["v1", "v1beta1"] as const;

/** The request's namespace; a Namespace's own is its name (kube-apiserver's request info says so). */
const namespaceOf = (request: AdmissionRequest): string =>
  request.namespace === "" && request.resource.group === "" && request.resource.resource === "namespaces"
    ? request.name
    : request.namespace;

/**
 * The AdmissionReview document sent to a webhook (`apiVersion` is `admission.k8s.io/<version>`):
 * empty optional strings are left out as Go's `omitempty` does, but `object` and `oldObject` are
 * always there, `null` when absent (a `RawExtension` is a struct, which `omitempty` keeps); a
 * Namespace's request names the namespace itself.
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
    ...(namespaceOf(request) === "" ? {} : { namespace: namespaceOf(request) }),
    operation: request.operation,
    userInfo: request.userInfo,
    object: request.object ?? null,
    oldObject: request.oldObject ?? null,
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

const INVALID = "received invalid webhook response: ";

/**
 * A webhook's patch decoded as the library decodes it: any JSON array of objects (or nulls); what
 * each operation holds is checked only when it is applied.
 */
const decodePatch = (base64: string): Result.Result<ReadonlyArray<JsonPatch.Operation>, string> => {
  const text = Buffer.from(base64, "base64").toString("utf8");
  return Result.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => `the patch is not JSON: ${String(error)}`,
  }).pipe(
    Result.flatMap((value) =>
      Array.isArray(value) && value.every((op) => op === null || isRecord(op))
        ? Result.succeed(value.map((op: Json | null) => JsonPatch.operationOf({ ...op })))
        : Result.fail("the patch is not a JSON patch (a list of operations)"),
    ),
  );
};

/**
 * Checks a webhook's answer as the API server does (its `VerifyAdmissionResponse`, then the
 * mutating dispatcher's patch decoding and patch-type check); a failure is the reason the call
 * counts as failed (and is then handled per the webhook's failurePolicy), worded as
 * kube-apiserver words it after `failed calling webhook "name": `. AdmissionReview v1beta1
 * answers are checked less, as there: neither uid nor patchType (a patch is a JSON patch).
 */
export const verifyResponse = (
  uid: string,
  version: string,
  mutating: boolean,
  document: unknown,
): Result.Result<Verdict, string> => {
  const expected = `admission.k8s.io/${version}`;
  if (!isRecord(document)) return Result.fail(`${INVALID}the webhook's response is not a JSON object`);
  const response = document.response;
  if (!isRecord(response)) return Result.fail(`${INVALID}webhook response was absent`);
  const v1 = version === "v1";
  if (v1 && response.uid !== uid)
    return Result.fail(`${INVALID}expected response.uid="${uid}", got "${String(response.uid ?? "")}"`);
  if (v1 && (document.apiVersion !== expected || document.kind !== "AdmissionReview")) {
    return Result.fail(
      `${INVALID}expected webhook response of ${expected}, Kind=AdmissionReview, got ${String(document.apiVersion ?? "")}, Kind=${String(document.kind ?? "")}`,
    );
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((warning): warning is string => typeof warning === "string")
    : [];
  const hasPatch = typeof response.patch === "string" && response.patch.length > 0;
  const patchType = v1 ? response.patchType : hasPatch ? "JSONPatch" : undefined;
  const verdict = (patch: ReadonlyArray<JsonPatch.Operation>): Verdict => ({
    allowed: response.allowed === true,
    result: isRecord(response.status) ? response.status : undefined,
    patch,
    warnings,
  });
  if (!mutating) {
    if (!v1) return Result.succeed(verdict([]));
    if (hasPatch) return Result.fail(`${INVALID}validating webhook may not return response.patch`);
    if (patchType !== undefined && patchType !== null)
      return Result.fail(`${INVALID}validating webhook may not return response.patchType`);
    return Result.succeed(verdict([]));
  }
  const noType = patchType === undefined || patchType === null;
  if (hasPatch && noType)
    return Result.fail(`${INVALID}webhook returned response.patch but not response.patchType`);
  if (!hasPatch && !noType)
    return Result.fail(`${INVALID}webhook returned response.patchType but not response.patch`);
  if (patchType === "") return Result.fail(`${INVALID}webhook returned invalid response.patchType of ""`);
  // Denials are not patched; nor are answers without a patch.
  if (!hasPatch || response.allowed !== true) return Result.succeed(verdict([]));
  const decoded = decodePatch(response.patch as string);
  if (Result.isFailure(decoded))
    return Result.fail(`received undecodable patch in webhook response: ${decoded.failure}`);
  if (decoded.success.length > 0 && patchType !== "JSONPatch")
    return Result.fail(`unsupported patch type ${JSON.stringify(String(patchType))}`);
  return Result.succeed(verdict(decoded.success));
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

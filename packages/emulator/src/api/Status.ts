/**
 * Kubernetes `Status` bodies for every failure the emulator answers, with the reasons, codes and
 * message wording of k8s.io/apimachinery's `errors` package, and the tagged `ApiError` carrying them.
 */
import * as Data from "effect/Data";
import * as FieldError from "./FieldError.ts";

export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests"
  | "InternalError"
  | "Timeout"
  | "ServiceUnavailable";

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: ReadonlyArray<StatusCause>;
  readonly retryAfterSeconds?: number;
}

export interface Status {
  readonly kind: "Status";
  readonly apiVersion: "v1";
  readonly metadata: Record<string, never>;
  readonly status: "Failure" | "Success";
  readonly message?: string;
  readonly reason?: StatusReason;
  readonly details?: StatusDetails;
  readonly code: number;
}

/**
 * A request failed; `status` is the exact body the apiserver answers with, and `warnings` the
 * warning texts the request gathered before it failed (they reach the client with the failure).
 */
export class ApiError extends Data.TaggedError("ApiError")<{
  readonly reason: StatusReason;
  readonly status: Status;
  readonly warnings?: ReadonlyArray<string>;
}> {}

/**
 * The failure with `warnings` gathered earlier in the request put before its own.
 *
 * @example
 * withWarnings(badRequest("no"), ["unknown field \"x\""]).warnings // ['unknown field "x"']
 */
export const withWarnings = (error: ApiError, warnings: ReadonlyArray<string>): ApiError =>
  warnings.length === 0
    ? error
    : new ApiError({
        reason: error.reason,
        status: error.status,
        warnings: [...warnings, ...(error.warnings ?? [])],
      });

/** A group-qualified resource (`configmaps`, `kopfexamples.kopf.dev`). */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export const qualified = (gr: GroupResource): string =>
  gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;

const details = (gr: GroupResource, name: string, extra: Partial<StatusDetails> = {}): StatusDetails => ({
  ...(name === "" ? {} : { name }),
  ...(gr.group === "" ? {} : { group: gr.group }),
  kind: gr.resource,
  ...extra,
});

export const make = (
  code: number,
  reason: StatusReason | undefined,
  message: string,
  statusDetails?: StatusDetails,
): ApiError =>
  new ApiError({
    reason: reason ?? "InternalError",
    status: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      ...(reason === undefined ? {} : { reason }),
      ...(statusDetails === undefined ? {} : { details: statusDetails }),
      code,
    },
  });

/**
 * `configmaps "x" not found` (404).
 *
 * @example
 * notFound({ group: "", resource: "configmaps" }, "x").status.message // 'configmaps "x" not found'
 */
export const notFound = (gr: GroupResource, name: string): ApiError =>
  make(
    404,
    "NotFound",
    name === "" ? `${qualified(gr)} not found` : `${qualified(gr)} ${JSON.stringify(name)} not found`,
    details(gr, name),
  );

export const alreadyExists = (gr: GroupResource, name: string): ApiError =>
  make(409, "AlreadyExists", `${qualified(gr)} ${JSON.stringify(name)} already exists`, details(gr, name));

export const conflict = (gr: GroupResource, name: string, why: string): ApiError =>
  make(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(gr)} ${JSON.stringify(name)}: ${why}`,
    details(gr, name),
  );

export const OBJECT_MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

/** `ConfigMap "X" is invalid: metadata.name: Invalid value: ...` (422). */
export const invalid = (
  group: string,
  kind: string,
  name: string,
  errors: ReadonlyArray<FieldError.FieldError>,
): ApiError => {
  const qualifiedKind = group === "" ? kind : `${kind}.${group}`;
  const rendered = [...new Set(errors.map(FieldError.render))];
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(", ")}]`;
  return make(422, "Invalid", `${qualifiedKind} ${JSON.stringify(name)} is invalid: ${summary}`, {
    ...(name === "" ? {} : { name }),
    ...(group === "" ? {} : { group }),
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: FieldError.errorBody(e), field: e.field })),
  });
};

export const forbidden = (
  gr: GroupResource,
  name: string,
  why: string,
  causes?: ReadonlyArray<StatusCause>,
): ApiError =>
  make(
    403,
    "Forbidden",
    name === ""
      ? `${qualified(gr)} is forbidden: ${why}`
      : `${qualified(gr)} ${JSON.stringify(name)} is forbidden: ${why}`,
    details(gr, name, causes === undefined ? {} : { causes }),
  );

export const badRequest = (message: string): ApiError => make(400, "BadRequest", message);

export const methodNotAllowed = (): ApiError =>
  make(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {});

/** For a verb a resource does not support (e.g. PUT on a collection). */
export const methodNotSupported = (gr: GroupResource, action: string): ApiError =>
  make(
    405,
    "MethodNotAllowed",
    `${action} is not supported on resources of kind ${JSON.stringify(qualified(gr))}`,
    details(gr, ""),
  );

export const resourceNotFound = (): ApiError =>
  make(404, "NotFound", "the server could not find the requested resource", {});

export const expired = (message: string): ApiError => make(410, "Expired", message);

export const gone = (message: string): ApiError => make(410, "Gone", message);

export const unsupportedMediaType = (_contentType: string, accepted: ReadonlyArray<string>): ApiError =>
  make(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );

/** What the apiserver's router answers for a media type no route of a built-in type consumes. */
export const routeUnsupportedMediaType = (): ApiError =>
  make(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});

export const notAcceptable = (accepted: ReadonlyArray<string>): ApiError =>
  make(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);

export const requestEntityTooLarge = (message: string): ApiError =>
  make(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);

/** What NewGenericServerResponse answers for a 422 (e.g. a JSON patch that fails to apply). */
export const unprocessable = (): ApiError =>
  make(422, "Invalid", "the server rejected our request due to an error in our request", {});

export const internal = (message: string): ApiError =>
  make(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] });

export const timeout = (message: string, retryAfterSeconds: number): ApiError =>
  make(504, "Timeout", `Timeout: ${message}`, { retryAfterSeconds });

/** The `Status` a successful delete answers with when the deleted object is not returned. */
export const success = (gr: GroupResource, name: string, uid: string | undefined) => ({
  kind: "Status" as const,
  apiVersion: "v1" as const,
  metadata: {},
  status: "Success" as const,
  details: details(gr, name, uid === undefined ? {} : { uid }),
});

/**
 * The one error type of the Kubernetes API client, and the one place where HTTP statuses and
 * Kubernetes `Status` bodies are turned into it (Kopf's `check_response`, docs/behaviour/watching.md#api-client).
 *
 * Every failure of a request — an error status, a broken connection, a timeout — becomes a
 * `KubeApiError` whose `reason` says what kind of failure it is, so callers branch on
 * `error.reason` instead of on numbers.
 */
import * as Data from "effect/Data";

/**
 * What went wrong, as a closed union. Statuses map as in Kopf: 400 `BadRequest`,
 * 401 `Unauthorized`, 403 `Forbidden`, 404 `NotFound`, 409 `Conflict`, 410 `Gone`,
 * 422 `Invalid`, 429 `TooManyRequests`, any other 4xx `ClientError`, 5xx `ServerError`.
 * Statuses outside 4xx–5xx that are not successes (e.g. 666) are `ClientError` as well: they
 * are never retried, like Kopf's base `APIError`. `TransportError` and `Timeout` are failures
 * without a response (connection refused or reset, TLS failures, client-side timeouts).
 *
 * @category models
 */
export type Reason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "TooManyRequests"
  | "ClientError"
  | "ServerError"
  | "TransportError"
  | "Timeout";

/** The `details` of a Kubernetes `Status` (meta/v1), as far as the client uses them. @category models */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly retryAfterSeconds?: number;
  readonly causes?: ReadonlyArray<{
    readonly reason?: string;
    readonly message?: string;
    readonly field?: string;
  }>;
  readonly [key: string]: unknown;
}

/** A Kubernetes `Status` body (meta/v1): what the API server answers on errors. @category models */
export interface StatusBody {
  readonly kind: "Status";
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: StatusDetails;
  readonly [key: string]: unknown;
}

/**
 * How many characters of a textual (non-JSON) error body are kept: longer texts are cut to
 * 253 characters plus `...` so that data blobs do not flood the logs.
 */
export const TEXT_ERROR_MAX_SIZE = 256;

/**
 * A failed Kubernetes API request.
 *
 * - `status`: the HTTP status (or the `code` of a watch `ERROR` event's Status); undefined when
 *   no response was received.
 * - `message`: the Status message, or the (truncated) text of a non-JSON body, or `""` for a
 *   JSON body that is not a Status (its content is not trusted into logs).
 * - `payload`, `code`, `details`: from the `Status` body when there was one.
 * - `retryAfterSeconds`: from the `Retry-After` header, else `details.retryAfterSeconds`.
 *
 * @example
 * ```ts
 * import { KubeApiError } from "@kopf/client"
 * const error = KubeApiError.fromResponse({ status: 404, headers: {}, body: '{"kind":"Status","code":404,"message":"nope"}' })
 * // error?.reason === "NotFound", error?.message === "nope"
 * ```
 * @category errors
 */
export class KubeApiError extends Data.TaggedError("KubeApiError")<{
  readonly reason: Reason;
  readonly status: number | undefined;
  readonly message: string;
  readonly payload: StatusBody | undefined;
  readonly code: number | undefined;
  readonly details: StatusDetails | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly cause?: unknown;
}> {
  /** See {@link fromResponse}. */
  static readonly fromResponse = (response: ResponseLike): KubeApiError | undefined => fromResponse(response);
  /** See {@link fromStatus}. */
  static readonly fromStatus = (status: StatusBody): KubeApiError => fromStatus(status);
  /** See {@link transportError}. */
  static readonly transport = (message: string, cause?: unknown): KubeApiError =>
    transportError(message, cause);
  /** See {@link timeoutError}. */
  static readonly timeout = (message: string, cause?: unknown): KubeApiError => timeoutError(message, cause);
  /** See {@link reasonOf}. */
  static readonly reasonOf = (status: number): Reason | undefined => reasonOf(status);
  /** See {@link isStatusBody}. */
  static readonly isStatusBody = (value: unknown): value is StatusBody => isStatusBody(value);
  /** See {@link invalidRequest}. */
  static readonly invalidRequest = (message: string): KubeApiError => invalidRequest(message);
}

/**
 * The reason for an HTTP status (or a Status `code`); `undefined` for successes (1xx–3xx).
 *
 * @example
 * ```ts
 * reasonOf(422) // "Invalid"
 * reasonOf(503) // "ServerError"
 * reasonOf(204) // undefined
 * ```
 */
export const reasonOf = (status: number): Reason | undefined => {
  if (status < 400) return undefined;
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
  }
  return status >= 500 && status < 600 ? "ServerError" : "ClientError";
};

/** Whether a value is a Kubernetes `Status` object. */
export const isStatusBody = (value: unknown): value is StatusBody =>
  typeof value === "object" && value !== null && !Array.isArray(value) && (value as any).kind === "Status";

/** A response as seen by the error mapping: status, headers (any case), and the raw body. */
export interface ResponseLike {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;
  readonly body: Uint8Array | string | undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

const headerOf = (headers: ResponseLike["headers"], name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return typeof value === "string" ? value : value?.[0];
  }
  return undefined;
};

const parseRetryAfter = (
  header: string | undefined,
  details: StatusDetails | undefined,
): number | undefined => {
  if (header !== undefined && header.trim() !== "") {
    const seconds = Number(header.trim());
    if (Number.isFinite(seconds) && seconds >= 0) return Math.trunc(seconds);
  }
  const fromDetails = details?.retryAfterSeconds;
  return typeof fromDetails === "number" && Number.isFinite(fromDetails) && fromDetails > 0
    ? Math.trunc(fromDetails)
    : undefined;
};

/** Cut a textual payload to {@link TEXT_ERROR_MAX_SIZE} characters, ending with `...` if cut. */
export const truncateText = (text: string): string =>
  text.length >= TEXT_ERROR_MAX_SIZE ? text.slice(0, TEXT_ERROR_MAX_SIZE - 3) + "..." : text;

type Payload =
  | { readonly _tag: "Status"; readonly status: StatusBody }
  | { readonly _tag: "Text"; readonly text: string };

const parsePayload = (body: Uint8Array | string | undefined): Payload => {
  const text = (typeof body === "string" ? body : body === undefined ? "" : decoder.decode(body)).trim();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { _tag: "Text", text: truncateText(text) };
  }
  if (typeof json !== "object" || json === null) return { _tag: "Text", text: truncateText(text) };
  // JSON that is not a Status may be a data blob with anything inside: do not keep it.
  return isStatusBody(json) ? { _tag: "Status", status: json } : { _tag: "Text", text: "" };
};

/**
 * Map a response to an error: `undefined` for successes (status below 400), otherwise a
 * `KubeApiError` with the reason of its status and the Status body's message and details.
 */
export const fromResponse = (response: ResponseLike): KubeApiError | undefined => {
  const reason = reasonOf(response.status);
  if (reason === undefined) return undefined;
  const payload = parsePayload(response.body);
  const status = payload._tag === "Status" ? payload.status : undefined;
  const details = status?.details;
  return new KubeApiError({
    reason,
    status: response.status,
    message: payload._tag === "Status" ? (status?.message ?? "") : payload.text,
    payload: status,
    code: typeof status?.code === "number" ? status.code : undefined,
    details,
    retryAfterSeconds: parseRetryAfter(headerOf(response.headers, "retry-after"), details),
  });
};

/**
 * Map a `Status` object received in a watch `ERROR` event (which arrives inside a 200 stream)
 * to an error, by its `code` (a missing or non-error code counts as a 500).
 *
 * @example
 * ```ts
 * fromStatus({ kind: "Status", code: 410, reason: "Expired", message: "too old resource version" }).reason // "Gone"
 * ```
 */
export const fromStatus = (status: StatusBody): KubeApiError => {
  const code = typeof status.code === "number" ? status.code : undefined;
  const reason = (code !== undefined ? reasonOf(code) : undefined) ?? "ServerError";
  return new KubeApiError({
    reason,
    status: code,
    message: typeof status.message === "string" ? status.message : "",
    payload: status,
    code,
    details: status.details,
    retryAfterSeconds: parseRetryAfter(undefined, status.details),
  });
};

/** An error that has no response behind it (nothing was received, or nothing was sent). */
const withoutResponse = (reason: Reason, message: string, cause?: unknown): KubeApiError =>
  new KubeApiError({
    reason,
    status: undefined,
    message,
    payload: undefined,
    code: undefined,
    details: undefined,
    retryAfterSeconds: undefined,
    ...(cause === undefined ? {} : { cause }),
  });

/** A failure without a response: connection refused/reset, DNS, TLS, a broken stream. */
export const transportError = (message: string, cause?: unknown): KubeApiError =>
  withoutResponse("TransportError", message, cause);

/** A client-side timeout (connect, headers or the whole request). */
export const timeoutError = (message: string, cause?: unknown): KubeApiError =>
  withoutResponse("Timeout", message, cause);

/** A request the client refuses to send (e.g. a namespace for a cluster-scoped resource). */
export const invalidRequest = (message: string): KubeApiError => withoutResponse("BadRequest", message);

/**
 * Kubernetes `Status` failure responses produced by the transport itself (authentication, body
 * limits, injected failures, control-surface errors), in the exact shape a kube-apiserver sends.
 */
import type { ApiResponse } from "../../api/Emulator.ts";

/** A response with its whole body. */
export type CompleteResponse = Extract<ApiResponse, { readonly _tag: "Complete" }>;

const encoder = new TextEncoder();

/** The `reason` a real API server pairs with each failure code. */
export const reasonForCode = (code: number): string => {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code >= 500 ? "InternalError" : "BadRequest";
  }
};

/** Options of a failure `Status`. */
export interface StatusOptions {
  readonly reason?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The JSON object of a failure `Status`. */
export const statusObject = (
  code: number,
  message: string,
  options: StatusOptions = {},
): Record<string, unknown> => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason: options.reason ?? reasonForCode(code),
  ...(options.details === undefined ? {} : { details: options.details }),
  code,
});

/** A complete JSON response. */
export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): CompleteResponse => ({
  _tag: "Complete",
  status,
  headers: { "content-type": "application/json", ...headers },
  body: encoder.encode(JSON.stringify(body)),
});

/** A complete failure `Status` response. */
export const statusResponse = (
  code: number,
  message: string,
  options: StatusOptions = {},
): CompleteResponse => jsonResponse(code, statusObject(code, message, options), options.headers);

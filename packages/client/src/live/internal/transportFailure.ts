/**
 * What a failed HTTP exchange becomes: a `KubeApiError` whose reason says whether time ran out
 * (`Timeout`) or the connection failed (`TransportError`), and whose message names the request
 * and the socket's or the TLS layer's own code. Shared by the live transports.
 */
import { KubeApiError } from "../../KubeApiError.ts";

/**
 * The code a live transport gives a connection that took longer than its connect timeout
 * (Node.js's own client has no connect timeout of its own).
 */
export const CONNECT_TIMEOUT_CODE = "KOPF_CONNECT_TIMEOUT";

const timeoutCodes = new Set([
  CONNECT_TIMEOUT_CODE,
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Map a failure of an HTTP client or of the socket below it to a `KubeApiError`.
 *
 * @example
 * ```ts
 * errorOf("GET https://h/api", Object.assign(new Error("x"), { code: "UND_ERR_CONNECT_TIMEOUT" })).reason // "Timeout"
 * ```
 */
export const errorOf = (what: string, error: unknown): KubeApiError => {
  const cause = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = cause?.code ?? cause?.cause?.code;
  const message = [code, cause?.message, cause?.cause?.message].filter((part) => !!part).join(": ");
  return code !== undefined && timeoutCodes.has(code)
    ? KubeApiError.timeout(`${what}: ${message}`, error)
    : KubeApiError.transport(`${what}: ${message || String(error)}`, error);
};

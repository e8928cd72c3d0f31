/**
 * How kube-apiserver words a webhook call that failed, since clients read it inside the `Status`
 * message (`failed calling webhook "name": failed to call webhook: <this>`): connection and TLS
 * failures as Go's HTTP client and `crypto/x509` word them, and error statuses as client-go's
 * REST client turns them into errors (the webhook's own `Status` message, else a generic text per
 * status code). Pure functions, checked against kube-apiserver v1.34.
 */

/** The most of a textual error body client-go keeps. */
const MAX_TEXT_BYTES = 2048;

const GENERIC: Readonly<Record<number, string>> = {
  400: "the server rejected our request for an unknown reason",
  401: "the server has asked for the client to provide credentials",
  404: "the server could not find the requested resource",
  405: "the server does not allow this method on the requested resource",
  409: "the server reported a conflict",
  422: "the server rejected our request due to an error in our request",
  429: "the server has received too many requests and has asked us to try again later",
  503: "the server is currently unable to handle the request",
  504: "the server was unable to return a response in the time allotted, but may still be processing the request",
};

const isTextual = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "" || contentType.trim().toLowerCase().startsWith("text/");

const statusMessage = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    const status = parsed as Record<string, unknown>;
    return status.kind === "Status" && status.status === "Failure" ? String(status.message ?? "") : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The error of a webhook's answer with a status outside 200–299: the message of a failed
 * `Status` it sent, else client-go's generic text for the code (a textual body is quoted for
 * 5xx, 403, 406 and 415; another body counts as `unknown`).
 *
 * @example
 * WebhookFailures.httpError(500, "text/plain", "boom")
 * // 'an error on the server ("boom") has prevented the request from succeeding'
 */
export const httpError = (status: number, contentType: string | undefined, body: string): string => {
  const json = contentType === undefined || contentType === "" || contentType.includes("json");
  const fromStatus = json ? statusMessage(body) : undefined;
  if (fromStatus !== undefined) return fromStatus;
  const server = isTextual(contentType)
    ? new TextDecoder().decode(new TextEncoder().encode(body).slice(0, MAX_TEXT_BYTES)).trim()
    : "unknown";
  if (status === 403 || status === 415) return server;
  if (status === 406) {
    return server === "" || server === "unknown"
      ? "the server was unable to respond with a content type that the client supports"
      : server;
  }
  const generic = GENERIC[status];
  if (generic !== undefined) return generic;
  return status >= 500
    ? `an error on the server (${JSON.stringify(server)}) has prevented the request from succeeding`
    : `the server responded with the status code ${status} but did not return more information`;
};

const IP = /^IP Address:(.+)$/;
const DNS = /^DNS:(.+)$/;

/**
 * Go's `x509.HostnameError` for a certificate whose names (Node's `subjectaltname`, e.g.
 * `"DNS:a, IP Address:127.0.0.1"`) do not include `host`: an IP host is checked against the IP
 * names, any other against the DNS names.
 *
 * @example
 * WebhookFailures.hostnameError("localhost", "DNS:127.0.0.1, IP Address:127.0.0.1")
 * // "x509: certificate is valid for 127.0.0.1, not localhost"
 */
export const hostnameError = (host: string, subjectAltName: string | undefined, isIp: boolean): string => {
  const names = (subjectAltName ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const valid = names.flatMap((name) => {
    const match = (isIp ? IP : DNS).exec(name);
    return match?.[1] === undefined ? [] : [match[1]];
  });
  if (isIp && valid.length === 0)
    return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (valid.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid.join(", ")}, not ${host}`;
};

/**
 * A connection or TLS failure (Node's error code) as Go's HTTP client words it; the certificate
 * of a name mismatch gives the valid names.
 *
 * @example
 * WebhookFailures.connectionError({ code: "ECONNREFUSED", message: "" }, new URL("https://127.0.0.1:9443/x"))
 * // "dial tcp 127.0.0.1:9443: connect: connection refused"
 */
export const connectionError = (
  error: { readonly code?: string | undefined; readonly message: string; readonly cert?: unknown },
  url: URL,
): string => {
  const address = `${url.hostname}:${url.port === "" ? "443" : url.port}`;
  switch (error.code) {
    case "ECONNREFUSED":
      return `dial tcp ${address}: connect: connection refused`;
    case "ENOTFOUND":
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case "ECONNRESET":
      return "EOF";
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "CERT_SIGNATURE_FAILURE":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "ERR_TLS_CERT_ALTNAME_INVALID": {
      const host = url.hostname.replace(/^\[|\]$/g, "");
      const cert = error.cert as { readonly subjectaltname?: string } | undefined;
      const isIp = /^[\d.]+$/.test(host) || host.includes(":");
      return `tls: failed to verify certificate: ${hostnameError(host, cert?.subjectaltname, isIp)}`;
    }
    case "CERT_HAS_EXPIRED":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    default:
      return error.message;
  }
};

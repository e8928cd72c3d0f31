/**
 * Parsing of the `http://host:port/path` URLs the operator serves on (the health and metrics
 * endpoints): only `http://`; host `localhost` and port 80 by default; brackets of IPv6 hosts
 * removed.
 */
import * as Result from "effect/Result";

/** Where to serve an endpoint. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly path: string;
}

/** Why a URL cannot be served. */
export interface EndpointProblem {
  readonly reason: "UnsupportedScheme" | "InvalidUrl";
  readonly message: string;
}

/**
 * Parses an endpoint URL; `what` names the endpoint in messages (`liveness`, `metrics`).
 *
 * @example
 * parse("http://0.0.0.0:9090/metrics", "metrics") // Success({ host: "0.0.0.0", port: 9090, path: "/metrics" })
 */
export const parse = (url: string, what: string): Result.Result<Endpoint, EndpointProblem> => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Result.fail({ reason: "InvalidUrl", message: `Invalid ${what} URL: ${url}` });
  }
  if (parsed.protocol !== "http:") {
    return Result.fail({
      reason: "UnsupportedScheme",
      message: `Unsupported scheme: ${url} (only http:// URLs are served for ${what})`,
    });
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1") || "localhost";
  return Result.succeed({
    host,
    port: parsed.port === "" ? 80 : Number(parsed.port),
    path: parsed.pathname || "/",
  });
};

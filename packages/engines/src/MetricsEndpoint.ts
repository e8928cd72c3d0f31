/**
 * The metrics endpoint's logic, independent of the HTTP server and of the exposition library
 * (edge code in `node/MetricsServer.ts` and `node/Exposition.ts`): parsing `--metrics URL`,
 * choosing the exposition format from the request's `Accept` header (the Prometheus text
 * format by default, OpenMetrics when the scraper asks for it), and answering a request.
 */
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Endpoints from "./internal/endpoints.ts";

/** Why the metrics endpoint cannot be served. */
export class MetricsError extends Data.TaggedError("MetricsError")<{
  readonly reason: "UnsupportedScheme" | "InvalidUrl" | "Listen";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** Where to serve the endpoint. */
export type Endpoint = Endpoints.Endpoint;

/**
 * Parses the metrics URL (`http://` only; host `localhost` and port 80 by default).
 *
 * @example
 * ```ts
 * MetricsEndpoint.parseEndpoint("http://0.0.0.0:9090/metrics") // Success({ host: "0.0.0.0", port: 9090, path: "/metrics" })
 * MetricsEndpoint.parseEndpoint("https://x/metrics")           // Failure(MetricsError UnsupportedScheme)
 * ```
 */
export const parseEndpoint = (url: string): Result.Result<Endpoint, MetricsError> =>
  Result.mapError(Endpoints.parse(url, "metrics"), (problem) => new MetricsError(problem));

/** The exposition formats served. */
export type Format = "prometheus" | "openmetrics";

/** The content types of the formats. */
export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  prometheus: "text/plain; version=0.0.4; charset=utf-8",
  openmetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8",
};

/**
 * The format a scraper asks for: OpenMetrics when its `Accept` header lists
 * `application/openmetrics-text` with a better (or equal) quality than the text format,
 * otherwise the Prometheus text format.
 *
 * @example
 * negotiate(undefined) // "prometheus"
 * negotiate("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5") // "openmetrics"
 * negotiate("application/openmetrics-text;q=0.2,text/plain;q=0.9") // "prometheus"
 */
export const negotiate = (accept: string | undefined): Format => {
  if (accept === undefined) return "prometheus";
  let open = -1;
  let text = -1;
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality) || quality <= 0) continue;
    if (type === "application/openmetrics-text") open = Math.max(open, quality);
    else if (type === "text/plain" || type === "text/*" || type === "*/*") text = Math.max(text, quality);
  }
  return open >= 0 && open >= text ? "openmetrics" : "prometheus";
};

/** A response of the endpoint. */
export interface Response {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * Answers one request: `GET`/`HEAD` of the configured path renders the metrics in the
 * negotiated format; other paths get `404`, other methods `405`.
 *
 * @example
 * ```ts
 * const response = yield* MetricsEndpoint.respond({ endpoint, render, method: "GET", path: "/metrics", accept: undefined })
 * // { status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: "# HELP ..." }
 * ```
 */
export const respond = (input: {
  readonly endpoint: Endpoint;
  readonly render: (format: Format) => Effect.Effect<string>;
  readonly method: string;
  readonly path: string;
  readonly accept: string | undefined;
}): Effect.Effect<Response> => {
  const path = input.path.split("?")[0] ?? "";
  const plain = "text/plain; charset=utf-8";
  if (path !== input.endpoint.path)
    return Effect.succeed({ status: 404, contentType: plain, body: "Not Found" });
  if (input.method !== "GET" && input.method !== "HEAD")
    return Effect.succeed({ status: 405, contentType: plain, body: "Method Not Allowed" });
  const format = negotiate(input.accept);
  return Effect.map(input.render(format), (body) => ({
    status: 200,
    contentType: CONTENT_TYPES[format],
    body,
  }));
};

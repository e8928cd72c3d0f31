/**
 * The health endpoint's logic (Kopf's `health_reporter`, docs/behaviour/operator.md#liveness-endpoint), independent of the HTTP
 * server (which is edge code in `node/LivenessServer.ts`): parsing `--liveness URL` (only
 * `http://`; host `localhost` and port 80 by default), and answering a request — `GET` of the
 * configured path runs the `on.probe` handlers through the runtime's prober (results cached
 * for 10 s, one run shared by concurrent requests) and answers `200` with their results as JSON
 * (`{}` without probes), or `500` as soon as a probe failed in any way (probes are not retried
 * within a request; a failure is not cached); other paths get `404`.
 */
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Endpoints from "./internal/endpoints.ts";

/** Why the liveness endpoint cannot be served. */
export class LivenessError extends Data.TaggedError("LivenessError")<{
  readonly reason: "UnsupportedScheme" | "InvalidUrl" | "Listen";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** Where to serve the endpoint. */
export type Endpoint = Endpoints.Endpoint;

/**
 * Parses the liveness URL.
 *
 * @example
 * ```ts
 * Liveness.parseEndpoint("http://0.0.0.0:8080/healthz") // Success({ host: "0.0.0.0", port: 8080, path: "/healthz" })
 * Liveness.parseEndpoint("https://x/healthz")           // Failure(LivenessError UnsupportedScheme)
 * ```
 */
export const parseEndpoint = (url: string): Result.Result<Endpoint, LivenessError> =>
  Result.mapError(Endpoints.parse(url, "liveness"), (problem) => new LivenessError(problem));

/** A response of the endpoint. */
export interface Response {
  readonly status: number;
  readonly body: string;
  /** Extra headers: `x-kopf-role` (`leader`/`standby`/`member`) when the operator is scaled out. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers one request.
 *
 * @example
 * ```ts
 * const response = yield* Liveness.respond({ endpoint, results: prober.results, method: "GET", path: "/healthz" })
 * // { status: 200, body: '{"check":"ok"}' }; with `role: "leader"`, also headers { "x-kopf-role": "leader" }
 * ```
 */
export const respond = (input: {
  readonly endpoint: Endpoint;
  readonly results: Effect.Effect<Readonly<Record<string, unknown>>, { readonly message: string }>;
  readonly method: string;
  readonly path: string;
  /** The replica's role when scaled out (leader election, sharding), reported in a header. */
  readonly role?: string | undefined;
}): Effect.Effect<Response> => {
  const path = input.path.split("?")[0] ?? "";
  if (path !== input.endpoint.path) return Effect.succeed({ status: 404, body: "Not Found" });
  if (input.method !== "GET" && input.method !== "HEAD")
    return Effect.succeed({ status: 405, body: "Method Not Allowed" });
  const headers = input.role === undefined ? {} : { headers: { "x-kopf-role": input.role } };
  return input.results.pipe(
    Effect.map((results): Response => ({ status: 200, body: JSON.stringify(results), ...headers })),
    Effect.catch((error) =>
      Effect.as(Effect.logError(`Probes failed: ${error.message}`), {
        status: 500,
        body: error.message,
        ...headers,
      }),
    ),
  );
};

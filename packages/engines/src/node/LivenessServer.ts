/**
 * The health endpoint's HTTP server (edge code): a plain `node:http` server on the endpoint's
 * host and port, answering through {@link Liveness.respond}, for as long as the scope is open.
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Liveness from "../Liveness.ts";
import { http, listen } from "./internal/listen.ts";

/**
 * Serves the endpoint in the current scope; completes with the bound port once listening.
 *
 * @example
 * ```ts
 * const port = yield* LivenessServer.serve(endpoint, prober.results)
 * ```
 */
export const serve = (
  endpoint: Liveness.Endpoint,
  results: Effect.Effect<Readonly<Record<string, unknown>>, { readonly message: string }>,
  role: Effect.Effect<string | undefined> = Effect.succeed(undefined),
): Effect.Effect<number, Liveness.LivenessError, Scope.Scope> =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<never>());
    const server = http().createServer((request, response) => {
      void run(
        Effect.flatMap(role, (current) =>
          Liveness.respond({
            endpoint,
            results,
            method: request.method ?? "GET",
            path: request.url ?? "/",
            role: current,
          }),
        ),
      ).then(({ status, body, headers }) => {
        response.writeHead(status, {
          "content-type": status === 200 ? "application/json" : "text/plain",
          ...headers,
        });
        response.end(request.method === "HEAD" ? undefined : body);
      });
    });
    const port = yield* listen(
      server,
      endpoint,
      (cause) =>
        new Liveness.LivenessError({
          reason: "Listen",
          message: `Cannot serve liveness at ${endpoint.host}:${endpoint.port}: ${cause.message}`,
          cause,
        }),
    );
    yield* Effect.logDebug(`Serving health status at http://${endpoint.host}:${port}${endpoint.path}`);
    return port;
  });

/**
 * The metrics endpoint's HTTP server (edge code): a plain `node:http` server on the endpoint's
 * host and port answering through {@link MetricsEndpoint.respond} with the context's metrics
 * rendered by {@link Exposition}, for as long as the scope is open.
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as MetricsEndpoint from "../MetricsEndpoint.ts";
import * as Exposition from "./Exposition.ts";
import { http, listen } from "./internal/listen.ts";

/**
 * Serves the metrics of the current context in the current scope; completes with the bound
 * port once listening.
 *
 * @example
 * ```ts
 * const port = yield* MetricsServer.serve({ host: "0.0.0.0", port: 9090, path: "/metrics" })
 * ```
 */
export const serve = (
  endpoint: MetricsEndpoint.Endpoint,
): Effect.Effect<number, MetricsEndpoint.MetricsError, Scope.Scope> =>
  Effect.gen(function* () {
    const exposition = yield* Exposition.make;
    const run = Effect.runPromiseWith(yield* Effect.context<never>());
    const server = http().createServer((request, response) => {
      void run(
        MetricsEndpoint.respond({
          endpoint,
          render: exposition.render,
          method: request.method ?? "GET",
          path: request.url ?? "/",
          accept: request.headers.accept,
        }),
      ).then(
        ({ status, contentType, body }) => {
          response.writeHead(status, { "content-type": contentType });
          response.end(request.method === "HEAD" ? undefined : body);
        },
        (error: unknown) => {
          // A rendering that broke (a bug): the scraper sees it as a failed scrape.
          response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
          response.end(`Cannot render the metrics: ${String(error)}`);
        },
      );
    });
    const port = yield* listen(
      server,
      endpoint,
      (cause) =>
        new MetricsEndpoint.MetricsError({
          reason: "Listen",
          message: `Cannot serve metrics at ${endpoint.host}:${endpoint.port}: ${cause.message}`,
          cause,
        }),
    );
    yield* Effect.logDebug(`Serving metrics at http://${endpoint.host}:${port}${endpoint.path}`);
    return port;
  });

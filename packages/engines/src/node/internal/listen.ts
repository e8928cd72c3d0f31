/**
 * Listening with a `node:http` server on an endpoint for the lifetime of a scope (edge code),
 * shared by the health and metrics servers: completes with the bound port, fails with the
 * caller's error when the port cannot be bound, closes the server (and its connections) when
 * the scope closes.
 */
import type * as Http from "node:http";
import type { Server } from "node:http";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type { Endpoint } from "../../internal/endpoints.ts";

/**
 * `node:http` taken from Node.js's built-in modules instead of an `import`: importing it as an ES
 * module reads every export, and its `WebSocket`-family getters load Node.js's own fetch
 * implementation, ~0.1 s of CPU and ~13 MiB at the start of every operator, serving or not.
 *
 * @example
 * ```ts
 * const server = http().createServer(handler)
 * ```
 */
export const http = (): typeof Http => process.getBuiltinModule("node:http");

/**
 * Listens in the current scope.
 *
 * @example
 * ```ts
 * const port = yield* listen(createServer(handler), endpoint, (cause) => new MetricsError({ reason: "Listen", message: cause.message, cause }))
 * ```
 */
export const listen = <E>(
  server: Server,
  endpoint: Endpoint,
  failure: (cause: Error) => E,
): Effect.Effect<number, E, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<number, E>((resume) => {
      server.once("error", (cause) => resume(Effect.fail(failure(cause))));
      server.listen(endpoint.port, endpoint.host, () => {
        const address = server.address();
        resume(
          Effect.succeed(typeof address === "object" && address !== null ? address.port : endpoint.port),
        );
      });
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void));
        server.closeAllConnections();
      }),
  );

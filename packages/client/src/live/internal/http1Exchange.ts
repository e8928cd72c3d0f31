/**
 * One request and its whole response over a pooled connection (the lean request path of the live
 * transport): the request's bytes go out in one write, the response is read by an
 * `Http1Response` reader, and the connection goes back to its pool, kept only when the response
 * left it in step. A connection that closes early, a malformed response and a request that
 * cannot be encoded fail with a `KubeApiError` naming the request; interrupting the exchange
 * closes its connection (its response would arrive for nobody). Edge code: sockets.
 */
import * as Effect from "effect/Effect";
import { KubeApiError } from "../../KubeApiError.ts";
import type { TransportRequest, TransportResponse } from "../../KubeTransport.ts";
import type * as Http1Pool from "./http1Pool.ts";
import * as Http1Request from "./http1Request.ts";
import * as Http1Response from "./http1Response.ts";
import type { RequestTarget } from "./requestTarget.ts";
import { errorOf } from "./transportFailure.ts";

/** The error of a connection that closed before its response was whole. */
export const cut = (started: boolean): Error =>
  Object.assign(
    new Error(
      started
        ? "the connection closed before the response ended"
        : "the connection closed before any response",
    ),
    { code: "ECONNRESET" },
  );

/** The bytes of `request`, or the error naming why it cannot be sent. */
export const encode = (request: TransportRequest, target: RequestTarget): Buffer | KubeApiError => {
  const bytes = Http1Request.encode(
    request.method,
    target.path,
    Http1Request.hostOf(target.server.hostname, target.server.port),
    request.headers,
    request.body,
  );
  return typeof bytes === "string"
    ? KubeApiError.transport(`${target.what}: cannot send the request: ${bytes}`)
    : bytes;
};

/**
 * Sends `request` on a connection of `pool` and reads its whole response.
 *
 * @example
 * ```ts
 * const response = yield* Http1Exchange.send(pool, request, targetOf(request), 30_000)
 * response.status // 200
 * ```
 */
export const send = (
  pool: Http1Pool.Pool,
  request: TransportRequest,
  target: RequestTarget,
  connectTimeout: number,
): Effect.Effect<TransportResponse, KubeApiError> => {
  const bytes = encode(request, target);
  if (!Buffer.isBuffer(bytes)) return Effect.fail(bytes);
  return Effect.callback<TransportResponse, KubeApiError>((resume) => {
    let settled = false;
    let current: Http1Pool.Connection | undefined;
    const settle = (connection: Http1Pool.Connection | undefined, reusable: boolean) => {
      settled = true;
      if (connection !== undefined) pool.release(connection, reusable);
    };
    const onStep = (connection: Http1Pool.Connection, step: Http1Response.Step) => {
      if (settled || step._tag === "More") return;
      switch (step._tag) {
        case "Done": {
          const { status, headers, body, reusable } = step.response;
          settle(connection, reusable);
          return resume(Effect.succeed({ status, headers, body }));
        }
        case "Malformed":
          settle(connection, false);
          return resume(
            Effect.fail(KubeApiError.transport(`${target.what}: malformed response: ${step.reason}`)),
          );
        case "Cut":
          settle(connection, false);
          return resume(Effect.fail(errorOf(target.what, cut(step.started))));
      }
    };
    const cancel = pool.acquire(
      connectTimeout,
      (connection) => {
        if (settled) return pool.release(connection, true);
        current = connection;
        const reader = Http1Response.reader();
        connection.handlers = {
          data: (chunk) => onStep(connection, reader.push(chunk)),
          end: () => onStep(connection, reader.end()),
          closed: (error) => {
            const step = reader.end();
            if (step._tag === "Cut" && error !== undefined) {
              if (settled) return;
              settled = true;
              resume(Effect.fail(errorOf(target.what, error)));
            } else onStep(connection, step);
          },
        };
        connection.socket.write(bytes);
      },
      (error) => {
        if (settled) return;
        settled = true;
        resume(Effect.fail(errorOf(target.what, error)));
      },
    );
    return Effect.sync(() => {
      if (settled) return;
      settled = true;
      cancel();
      if (current !== undefined) pool.release(current, false);
    });
  });
};

/**
 * One request and its whole response over a pooled connection (the lean request path of the live
 * transport): the request's bytes go out in one write, the response is read by an
 * `Http1Response` reader, and the connection goes back to its pool, kept only when the response
 * left it in step. Writing a request and reading its answer (`start`) is shared with streamed
 * responses (`http1Stream.ts`). A connection that closes early, a malformed response and a
 * request that cannot be encoded fail with a `KubeApiError` naming the request; interrupting the
 * exchange, or its deadline passing (the request's `timeout`), closes its connection (its response
 * would arrive for nobody). Edge code: sockets and timers.
 */
import * as Effect from "effect/Effect";
import * as Deadline from "../../internal/deadline.ts";
import { KubeApiError } from "../../KubeApiError.ts";
import type { TransportRequest, TransportResponse } from "../../KubeTransport.ts";
import type * as Http1Pool from "./http1Pool.ts";
import * as Http1Request from "./http1Request.ts";
import * as Http1Response from "./http1Response.ts";
import type { RequestTarget } from "./requestTarget.ts";
import { errorOf } from "./transportFailure.ts";

/** The error of a connection that closed before its response was whole. */
const cut = (started: boolean): Error =>
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
    target.server.host,
    request.headers,
    request.body,
  );
  return typeof bytes === "string"
    ? KubeApiError.transport(`${target.what}: cannot send the request: ${bytes}`)
    : bytes;
};

/** How a response read by {@link start} ended: whole, or failed with an error naming the request. */
export type Outcome =
  | { readonly _tag: "Done"; readonly response: Http1Response.Response }
  | { readonly _tag: "Failed"; readonly error: KubeApiError };

/**
 * Writes `bytes` on `connection` and feeds what comes back to `reader`; `settle` gets how the
 * response ended (a closed connection's own socket error, when it has one, names the failure).
 * The caller gives the connection back to the pool.
 *
 * @example
 * ```ts
 * start(connection, bytes, Http1Response.reader(), target, (outcome) => finish(outcome))
 * ```
 */
export const start = (
  connection: Http1Pool.Connection,
  bytes: Buffer,
  reader: Http1Response.Reader,
  target: RequestTarget,
  settle: (outcome: Outcome) => void,
): void => {
  const onStep = (step: Http1Response.Step) => {
    switch (step._tag) {
      case "More":
        return;
      case "Done":
        return settle(step);
      case "Malformed":
        return settle({
          _tag: "Failed",
          error: KubeApiError.transport(`${target.what}: malformed response: ${step.reason}`),
        });
      case "Cut":
        return settle({ _tag: "Failed", error: errorOf(target.what, cut(step.started)) });
    }
  };
  connection.handlers = {
    data: (chunk) => onStep(reader.push(chunk)),
    end: () => onStep(reader.end()),
    closed: (error) => {
      const step = reader.end();
      if (step._tag === "Cut" && error !== undefined)
        settle({ _tag: "Failed", error: errorOf(target.what, error) });
      else onStep(step);
    },
  };
  connection.socket.write(bytes);
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
    // The request's deadline, from now to the response's end (`networking.requestTimeout`).
    const { timeout } = request;
    const deadline =
      timeout === undefined
        ? undefined
        : setTimeout(() => {
            if (settled) return;
            abandon();
            resume(Effect.fail(Deadline.noResponse(timeout, target.what)));
          }, timeout);
    deadline?.unref();
    const settle = () => {
      settled = true;
      clearTimeout(deadline);
    };
    // Closes the exchange unanswered: its connection is not reused (a late answer would arrive
    // on it for nobody).
    const abandon = () => {
      settle();
      cancel();
      if (current !== undefined) pool.release(current, false);
    };
    const cancel = pool.acquire(
      connectTimeout,
      (connection) => {
        if (settled) return pool.release(connection, true);
        current = connection;
        start(connection, bytes, Http1Response.reader(), target, (outcome) => {
          if (settled) return;
          settle();
          if (outcome._tag === "Failed") {
            pool.release(connection, false);
            return resume(Effect.fail(outcome.error));
          }
          const { status, headers, body, reusable } = outcome.response;
          pool.release(connection, reusable);
          resume(Effect.succeed({ status, headers, body }));
        });
      },
      (error) => {
        if (settled) return;
        settle();
        resume(Effect.fail(errorOf(target.what, error)));
      },
    );
    return Effect.sync(() => {
      if (settled) return;
      abandon();
    });
  });
};

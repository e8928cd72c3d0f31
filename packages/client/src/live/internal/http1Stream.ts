/**
 * A streamed response (a watch) over a pooled connection of the lean path: the request goes out,
 * the effect completes with the status and headers, and the body's pieces are pulled as they
 * arrive, every piece received since the last pull at once. While more than {@link HIGH_WATER}
 * bytes wait for the consumer, the socket is paused (the server's writes back up, not our
 * memory). A body that ends in step gives its connection back to the pool; closing the scope
 * before that closes the connection (the server would go on streaming into it). A connection
 * that breaks mid-way fails the body with a `KubeApiError` naming the request. Edge code:
 * sockets.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import type { KubeApiError } from "../../KubeApiError.ts";
import type { StreamingResponse, TransportRequest } from "../../KubeTransport.ts";
import { encode, start as exchange } from "./http1Exchange.ts";
import type * as Http1Pool from "./http1Pool.ts";
import * as Http1Response from "./http1Response.ts";
import type { RequestTarget } from "./requestTarget.ts";
import { errorOf } from "./transportFailure.ts";

/** Bytes received and not yet pulled beyond which the socket is paused. */
export const HIGH_WATER = 1024 * 1024;

type Chunks = [Uint8Array, ...Array<Uint8Array>];

/**
 * Opens `request` as a stream on a connection of `pool`; the connection is the scope's.
 *
 * @example
 * ```ts
 * const response = yield* Http1Stream.open(pool, watchRequest, targetOf(watchRequest), 30_000)
 * yield* Stream.runForEach(response.body, (chunk) => decode(chunk))
 * ```
 */
export const open = (
  pool: Http1Pool.Pool,
  request: TransportRequest,
  target: RequestTarget,
  connectTimeout: number,
): Effect.Effect<StreamingResponse, KubeApiError, Scope.Scope> => {
  const bytes = encode(request, target);
  if (!Buffer.isBuffer(bytes)) return Effect.fail(bytes);
  let connection: Http1Pool.Connection | undefined;
  /** Given back to the pool (or closed): nothing more is read from it. */
  let released = false;
  let chunks: Array<Uint8Array> = [];
  let waiting = 0;
  let paused = false;
  let ended = false;
  let failure: KubeApiError | undefined;
  let wake: (() => void) | undefined;
  let headed: ((outcome: Effect.Effect<StreamingResponse, KubeApiError>) => void) | undefined;

  const release = (reusable: boolean) => {
    if (released || connection === undefined) return;
    released = true;
    if (paused) connection.socket.resume();
    pool.release(connection, reusable);
  };
  const fail = (error: KubeApiError) => {
    release(false);
    if (headed !== undefined) {
      const resume = headed;
      headed = undefined;
      return resume(Effect.fail(error));
    }
    failure ??= error;
    wake?.();
  };
  /** The next pieces of the body: what is waiting, else the next to arrive, else the end. */
  const pull: Effect.Effect<Chunks, KubeApiError | Cause.Done> = Effect.suspend(() => {
    if (chunks.length > 0) {
      const out = chunks as Chunks;
      chunks = [];
      waiting = 0;
      if (paused && !released && connection !== undefined) {
        paused = false;
        connection.socket.resume();
      }
      return Effect.succeed(out);
    }
    if (failure !== undefined) return Effect.fail(failure);
    if (ended) return Cause.done();
    return Effect.flatMap(
      Effect.callback<void>((resume) => {
        wake = () => {
          wake = undefined;
          resume(Effect.void);
        };
        return Effect.sync(() => {
          wake = undefined;
        });
      }),
      () => pull,
    );
  });

  const body = Stream.fromPull(Effect.succeed(pull));

  const opening = Effect.callback<StreamingResponse, KubeApiError>((resume) => {
    headed = resume;
    const sink: Http1Response.Sink = {
      head: (status, headers) => {
        const done = headed;
        headed = undefined;
        done?.(Effect.succeed({ status, headers, body }));
      },
      body: (chunk) => {
        chunks.push(chunk);
        waiting += chunk.length;
        if (waiting > HIGH_WATER && !paused && connection !== undefined) {
          paused = true;
          connection.socket.pause();
        }
        wake?.();
      },
    };
    const cancel = pool.acquire(
      connectTimeout,
      (acquired) => {
        connection = acquired;
        if (headed === undefined) return release(true); // interrupted while connecting
        exchange(acquired, bytes, Http1Response.reader(sink), target, (outcome) => {
          if (outcome._tag === "Failed") return fail(outcome.error);
          ended = true;
          release(outcome.response.reusable);
          wake?.();
        });
      },
      (error) => fail(errorOf(target.what, error)),
    );
    return Effect.sync(() => {
      headed = undefined;
      cancel();
      release(false);
    });
  });

  return Effect.acquireRelease(opening, () => Effect.sync(() => release(false)));
};

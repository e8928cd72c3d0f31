/**
 * Retries of API requests as Kopf does them (docs/behaviour/watching.md#api-client, vectors docs/behaviour/watching.md#api-client), expressed as an Effect
 * `Schedule` so that the waits run on `Clock` (and tests run them in virtual time).
 *
 * Retried: connection errors, timeouts, 5xx (but a rejected shard selector), 403 (API servers
 * answer it briefly during upgrades) and 429. Everything else escalates at once. The waits come from
 * `networking.errorBackoffs` (seconds; one number is one backoff; `[]` disables retries); on 429
 * the server's `Retry-After` is never undercut: it replaces the backoff when
 * `enforceRetryAfter` is set or when it is longer.
 */
import * as Cause from "effect/Cause";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { KubeApiError, Reason } from "./KubeApiError.ts";

/** The retry settings (`networking.*` of the operator settings). @category models */
export interface RetryOptions {
  /** Seconds to wait before each retry: a number (one retry) or any re-iterable of numbers. */
  readonly errorBackoffs: number | Iterable<number>;
  /** Always wait exactly the server's Retry-After on 429, even when the backoff is longer. */
  readonly enforceRetryAfter: boolean;
}

/** Kopf's defaults: `1, 1, 2, 3, 5, 8, 13, 21` (up to 9 attempts), Retry-After not enforced. */
export const defaults: RetryOptions = { errorBackoffs: [1, 1, 2, 3, 5, 8, 13, 21], enforceRetryAfter: false };

const retryableReasons: ReadonlySet<Reason> = new Set<Reason>([
  "TransportError",
  "Timeout",
  "ServerError",
  "Forbidden",
  "TooManyRequests",
]);

const isKubeApiError = (error: unknown): error is KubeApiError =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "KubeApiError";

/**
 * Whether a failure is worth another attempt.
 *
 * @example
 * ```ts
 * isRetryable(KubeApiError.fromResponse({ status: 503, headers: {}, body: "" })) // true
 * isRetryable(KubeApiError.fromResponse({ status: 404, headers: {}, body: "" })) // false
 * ```
 */
export const isRetryable = (error: unknown): error is KubeApiError =>
  isKubeApiError(error) && retryableReasons.has(error.reason) && !rejectsShardSelector(error);

/**
 * kube-apiserver (v1.36+, sharded list and watch) answers a `shardSelector` it cannot parse with
 * a 500 whose message starts `invalid shard selector: ` (its registry returns a plain error): the
 * same request fails the same way every time, so it is not retried.
 *
 * @example
 * ```ts
 * rejectsShardSelector(error) // true for a 500 "invalid shard selector: hexStart must …"
 * ```
 */
export const rejectsShardSelector = (error: KubeApiError): boolean =>
  error.status === 500 && error.message.includes("invalid shard selector: ");

/**
 * The wait before the next attempt, in seconds, given the configured backoff and the server's
 * Retry-After (if any): the Retry-After replaces the backoff when enforced or when longer.
 *
 * @example
 * ```ts
 * nextDelay(5, 10, false) // 10
 * nextDelay(15, 10, false) // 15
 * nextDelay(15, 10, true) // 10
 * ```
 */
export const nextDelay = (
  backoff: number,
  retryAfter: number | undefined,
  enforceRetryAfter: boolean,
): number => (retryAfter !== undefined && (enforceRetryAfter || retryAfter > backoff) ? retryAfter : backoff);

const toIterable = (backoffs: number | Iterable<number>): Iterable<number> =>
  typeof backoffs === "number" ? [backoffs] : backoffs;

const countOf = (backoffs: number | Iterable<number>): number | undefined => {
  if (typeof backoffs === "number") return 2;
  if (Array.isArray(backoffs)) return backoffs.length + 1;
  if (backoffs instanceof Set) return backoffs.size + 1;
  return undefined;
};

const describeError = (error: unknown): string =>
  isKubeApiError(error)
    ? `${error.reason}${error.status === undefined ? "" : ` ${error.status}`}: ${error.message}`
    : String(error);

/**
 * The retry schedule for one request described by `what` (e.g. `GET /api/v1/pods`). Each run of
 * the schedule iterates the backoffs afresh, so re-iterables are honoured on every request. It
 * logs Kopf's lines: "Request attempt #i/N failed; will retry: …", "…; escalating: …" and
 * "Overriding the backoff …s with the retry-after …s from the server: …". The "will retry" lines go
 * through `logRetry` (e.g. a `FailureDigest`), error-level lines by default.
 *
 * @example
 * ```ts
 * request.pipe(Effect.retry(Retries.schedule({ errorBackoffs: [1, 2], enforceRetryAfter: false }, "GET /api")))
 * ```
 */
export const schedule = (
  options: RetryOptions,
  what: string,
  logRetry: (line: string) => Effect.Effect<void> = Effect.logError,
): Schedule.Schedule<number, unknown> =>
  Schedule.fromStepWithMetadata(
    Effect.sync(() => {
      const backoffs = toIterable(options.errorBackoffs)[Symbol.iterator]();
      const count = countOf(options.errorBackoffs);
      return (meta: Schedule.InputMetadata<unknown>) => {
        const error = meta.input;
        if (!isRetryable(error)) return Cause.done(meta.attempt);
        const index = count === undefined ? `#${meta.attempt}` : `#${meta.attempt}/${count}`;
        const next = backoffs.next();
        if (next.done === true) {
          return Effect.logError(
            `Request attempt ${index} failed; escalating: ${what} -> ${describeError(error)}`,
          ).pipe(Effect.andThen(Cause.done(meta.attempt)));
        }
        const backoff = next.value;
        const delay = nextDelay(backoff, error.retryAfterSeconds, options.enforceRetryAfter);
        return Effect.gen(function* () {
          if (delay !== backoff) {
            yield* Effect.logDebug(
              `Overriding the backoff ${backoff}s with the retry-after ${delay}s from the server: ${what}`,
            );
          }
          yield* logRetry(`Request attempt ${index} failed; will retry: ${what} -> ${describeError(error)}`);
          return [meta.attempt, Duration.seconds(Math.max(0, delay))] as [number, Duration.Duration];
        });
      };
    }),
  );

/**
 * Run a request with the retries of {@link schedule}.
 *
 * @example
 * ```ts
 * const get = Retries.retrying(settings, "GET /api/v1/namespaces")(transport.request(...))
 * ```
 */
export const retrying =
  (options: RetryOptions, what: string, logRetry?: (line: string) => Effect.Effect<void>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.retry(effect, schedule(options, what, logRetry));

/**
 * A client-side rate limit for API requests: a token bucket of `burst` requests refilled at `qps`
 * per second (the same model as client-go's default limiter). Off unless configured, like
 * controller-runtime. Waits run on `Clock`, so tests drive them with `TestClock`.
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";

/** Requests per second and the burst allowed above it. @category models */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

/** A limiter: `acquire` returns when the caller may send one request. @category models */
export interface RateLimiter {
  readonly acquire: Effect.Effect<void>;
}

/**
 * A limiter that never waits (the default: no client-side rate limit).
 *
 * @example
 * ```ts
 * yield* RateLimiter.unlimited.acquire // returns at once
 * ```
 */
export const unlimited: RateLimiter = { acquire: Effect.void };

/**
 * A token-bucket limiter. Callers reserve a token each; when the bucket is empty they wait until
 * their reservation is covered, so concurrent callers are spaced `1/qps` seconds apart.
 *
 * @example
 * ```ts
 * const limiter = RateLimiter.make({ qps: 5, burst: 10 })
 * yield* limiter.acquire // then send the request
 * ```
 */
export const make = (limit: RateLimit): RateLimiter => {
  if (!(limit.qps > 0) || !Number.isFinite(limit.qps)) return unlimited;
  const burst = Math.max(1, limit.burst);
  let tokens = burst;
  let last: number | undefined;
  return {
    acquire: Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (last !== undefined) tokens = Math.min(burst, tokens + ((now - last) * limit.qps) / 1000);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? Effect.void : Effect.sleep((-tokens / limit.qps) * 1000);
    }),
  };
};

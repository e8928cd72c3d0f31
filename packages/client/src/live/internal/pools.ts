/**
 * The connection pools of a live transport, one per key (server × TLS identity × connect timeout
 * × streams or requests), made on first use and kept for the life of the scope. Beyond `max`
 * pools the least recently used one is closed gracefully (its requests finish first); closing
 * the scope destroys them all. Creation is serialised, so concurrent first requests make one.
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Semaphore from "effect/Semaphore";
import type { KubeApiError } from "../../KubeApiError.ts";

/** How a transport closes its kind of pool. */
export interface PoolLifecycle<P> {
  /** Finish what is in flight, keep nothing idle, then let go. */
  readonly close: (pool: P) => unknown;
  /** Close every connection now (the scope is closing). */
  readonly destroy: (pool: P) => unknown;
}

/** Pools by key. */
export interface Pools<P> {
  /** The pool of `key`, made by `create` if there is none yet. */
  readonly get: (key: string, create: Effect.Effect<P, KubeApiError>) => Effect.Effect<P, KubeApiError>;
  /** The pool of `key` if it is made already (then the most recently used), with no effect. */
  readonly getNow: (key: string) => P | undefined;
}

/**
 * Pools kept in the current scope.
 *
 * @example
 * ```ts
 * const pools = yield* Pools.make(32, { close: (agent) => agent.destroy(), destroy: (agent) => agent.destroy() })
 * const agent = yield* pools.get("https://h|30000|request", Effect.sync(() => new Agent()))
 * ```
 */
export const make = <P>(
  max: number,
  lifecycle: PoolLifecycle<P>,
): Effect.Effect<Pools<P>, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Insertion order is recency order: a used pool is moved to the end.
    const pools = new Map<string, P>();
    const limit = Math.max(1, max);
    const creating = yield* Semaphore.make(1);
    yield* Effect.addFinalizer(() =>
      Effect.promise(() =>
        Promise.allSettled([...pools.values()].map(async (pool) => lifecycle.destroy(pool))),
      ),
    );
    const getNow = (key: string): P | undefined => {
      const existing = pools.get(key);
      if (existing !== undefined) {
        pools.delete(key);
        pools.set(key, existing);
      }
      return existing;
    };
    const get = (key: string, create: Effect.Effect<P, KubeApiError>) => {
      const existing = getNow(key);
      if (existing !== undefined) return Effect.succeed(existing);
      return creating.withPermits(1)(
        Effect.gen(function* () {
          const raced = pools.get(key);
          if (raced !== undefined) return raced;
          const pool = yield* create;
          pools.set(key, pool);
          while (pools.size > limit) {
            const [oldestKey, oldest] = pools.entries().next().value!;
            pools.delete(oldestKey);
            yield* Effect.promise(async () => {
              try {
                await lifecycle.close(oldest);
              } catch {
                // Closing a pool nobody uses any more: nothing to report to a request.
              }
            }).pipe(Effect.forkDetach);
          }
          return pool;
        }),
      );
    };
    return { get, getNow };
  });

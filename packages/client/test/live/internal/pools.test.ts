// Covers the live transports' pools: one pool per key however many ask for it at once, the least
// recently used one closed (gracefully) beyond the limit, a used pool kept as the most recent, a
// failed creation leaving nothing behind, a pool looked up with no effect once made, and every
// pool destroyed when the scope closes.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Scope from "effect/Scope";
import { KubeApiError } from "../../../src/KubeApiError.ts";
import * as Pools from "../../../src/live/internal/pools.ts";

interface FakePool {
  readonly key: string;
  state: "open" | "closed" | "destroyed";
}

const harness = Effect.gen(function* () {
  const made: Array<FakePool> = [];
  const scope = yield* Scope.make();
  const pools = yield* Pools.make<FakePool>(2, {
    close: (pool) => {
      pool.state = "closed";
    },
    destroy: (pool) => {
      pool.state = "destroyed";
    },
  }).pipe(Scope.provide(scope));
  const get = (key: string) =>
    pools.get(
      key,
      Effect.sync(() => {
        const pool: FakePool = { key, state: "open" };
        made.push(pool);
        return pool;
      }),
    );
  return { made, scope, pools, get };
});

/** Lets the detached closings run. */
const settle = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));

describe("Pools", () => {
  it.live("makes one pool per key, even for concurrent first requests", () =>
    Effect.gen(function* () {
      const { made, get } = yield* harness;
      const got = yield* Effect.forEach(["a", "a", "a", "b"], get, { concurrency: "unbounded" });
      assert.strictEqual(made.length, 2);
      assert.strictEqual(got[0], got[1]);
      assert.strictEqual(got[1], got[2]);
      assert.notStrictEqual(got[0], got[3]);
    }),
  );

  it.live("getNow: nothing before a pool is made, then the pool itself, used as recently as by get", () =>
    Effect.gen(function* () {
      const { made, get, pools } = yield* harness;
      assert.strictEqual(pools.getNow("a"), undefined);
      assert.strictEqual(made.length, 0);
      const a = yield* get("a");
      yield* get("b");
      assert.strictEqual(pools.getNow("a"), a); // now b is the least recently used
      yield* get("c");
      yield* settle;
      assert.deepStrictEqual(
        made.map((pool) => `${pool.key} ${pool.state}`),
        ["a open", "b closed", "c open"],
      );
      assert.strictEqual(pools.getNow("b"), undefined);
    }),
  );

  it.live("closes the least recently used pool beyond the limit; a used pool counts as recent", () =>
    Effect.gen(function* () {
      const { made, get } = yield* harness;
      yield* get("a");
      yield* get("b");
      yield* get("a"); // now b is the least recently used
      yield* get("c");
      yield* settle;
      assert.deepStrictEqual(
        made.map((pool) => [pool.key, pool.state]),
        [
          ["a", "open"],
          ["b", "closed"],
          ["c", "open"],
        ],
      );
      // b is gone: asking again makes a new one (and closes a, now the least recent).
      yield* get("b");
      yield* settle;
      assert.deepStrictEqual(
        made.map((pool) => [pool.key, pool.state]),
        [
          ["a", "closed"],
          ["b", "closed"],
          ["c", "open"],
          ["b", "open"],
        ],
      );
    }),
  );

  it.live("a failed creation keeps nothing; the next request tries again", () =>
    Effect.gen(function* () {
      const { made, pools, get } = yield* harness;
      const error = yield* Effect.flip(pools.get("a", Effect.fail(KubeApiError.transport("no CA file"))));
      assert.strictEqual(error.message, "no CA file");
      yield* get("a");
      assert.strictEqual(made.length, 1);
    }),
  );

  it.live("destroys every pool when the scope closes", () =>
    Effect.gen(function* () {
      const { made, scope, get } = yield* harness;
      yield* get("a");
      yield* get("b");
      yield* Scope.close(scope, Exit.void);
      assert.deepStrictEqual(
        made.map((pool) => pool.state),
        ["destroyed", "destroyed"],
      );
    }),
  );
});

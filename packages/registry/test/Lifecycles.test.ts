/**
 * Lifecycles (docs/behaviour/processing.md#lifecycles, Kopf's tests/lifecycles/test_handler_selection.py): empty input ⇒ empty
 * for all; all_at_once keeps order; one_by_one takes the first; randomized takes one of them;
 * shuffled keeps all; asap picks the fewest retries (first on ties). Randomness is injected.
 */
import { assert, describe, it } from "@effect/vitest";
import * as fc from "fast-check";
import * as Lifecycles from "../src/Lifecycles.ts";

const h1 = { id: "h1" };
const h2 = { id: "h2" };
const h3 = { id: "h3" };
const handlers = [h1, h2, h3];
const ctx = (
  retries: Record<string, number> = {},
  random: () => number = () => 0,
): Lifecycles.LifecycleContext => ({
  retries: (id) => retries[id] ?? 0,
  random,
});

const LIFECYCLES: Readonly<Record<string, Lifecycles.Lifecycle>> = {
  all_at_once: Lifecycles.all_at_once,
  one_by_one: Lifecycles.one_by_one,
  randomized: Lifecycles.randomized,
  shuffled: Lifecycles.shuffled,
  asap: Lifecycles.asap,
};
const ALL = Object.keys(LIFECYCLES);

describe("lifecycles", () => {
  it.each(ALL)("%s returns nothing for no handlers", (name) => {
    assert.deepStrictEqual(LIFECYCLES[name]!([], ctx()), []);
  });

  it("all_at_once keeps every handler in order", () => {
    assert.deepStrictEqual(Lifecycles.all_at_once(handlers, ctx()), [h1, h2, h3]);
  });

  it("one_by_one takes the first", () => {
    assert.deepStrictEqual(Lifecycles.one_by_one(handlers, ctx()), [h1]);
  });

  it.each([
    [0, h1],
    [0.4, h2],
    [0.999, h3],
    [1, h3],
  ] as const)("randomized with random()=%s takes one", (r, expected) => {
    assert.deepStrictEqual(
      Lifecycles.randomized(
        handlers,
        ctx({}, () => r),
      ),
      [expected],
    );
  });

  it("shuffled keeps all handlers (property over random sources)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3 }), (randoms) => {
        let i = 0;
        const result = Lifecycles.shuffled(
          handlers,
          ctx({}, () => randoms[i++ % randoms.length] ?? 0),
        );
        assert.strictEqual(result.length, 3);
        assert.sameMembers([...result], handlers);
      }),
    );
  });

  it("asap takes the handler with the fewest retries", () => {
    assert.deepStrictEqual(Lifecycles.asap(handlers, ctx({ h1: 2, h2: 0, h3: 1 })), [h2]);
  });

  it("asap takes the first without retries", () => {
    assert.deepStrictEqual(Lifecycles.asap(handlers, ctx()), [h1]);
  });

  it("asap is stable on ties", () => {
    assert.deepStrictEqual(Lifecycles.asap(handlers, ctx({ h1: 3, h2: 1, h3: 1 })), [h2]);
  });

  it("asap is the default", () => {
    assert.strictEqual(Lifecycles.defaultLifecycle, Lifecycles.asap);
  });

  it("every lifecycle returns a subset of its input (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL),
        fc.uniqueArray(fc.string(), { maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (name, ids, r) => {
          const input = ids.map((id) => ({ id }));
          const result = LIFECYCLES[name]!(
            input,
            ctx({}, () => r),
          );
          for (const h of result) assert.include(input, h);
          assert.isAtMost(result.length, input.length);
        },
      ),
    );
  });
});

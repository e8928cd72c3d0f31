// The ownership fence: claims only for owned objects, patches only while the lease is valid and
// the object claimed, gains published as predicates of what was gained, drains waiting for the
// claimed objects to end their cycles.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import * as Ownership from "../src/Ownership.ts";

describe("Ownership", () => {
  it.effect("claims what is assigned; holds while claimed and valid", () =>
    Effect.gen(function* () {
      let valid = true;
      const fence = yield* Ownership.make(Effect.sync(() => valid));
      assert.isFalse(yield* fence.ownership.claim("a"));
      yield* fence.assign((key) => key === "a");
      assert.isTrue(yield* fence.ownership.claim("a"));
      assert.isFalse(yield* fence.ownership.claim("b"));
      assert.isTrue(yield* fence.ownership.holds("a"));
      assert.isFalse(yield* fence.ownership.holds("b"));
      valid = false;
      assert.isFalse(yield* fence.ownership.holds("a"));
      yield* fence.ownership.release("a");
      assert.deepStrictEqual(fence.busy(), []);
    }),
  );

  it.effect("an object dropped from the assignment takes no new work but finishes its cycle", () =>
    Effect.gen(function* () {
      const fence = yield* Ownership.make(Effect.succeed(true));
      yield* fence.assign(Ownership.EVERYTHING);
      assert.isTrue(yield* fence.ownership.claim("a"));
      yield* fence.assign(Ownership.NOTHING);
      assert.isFalse(yield* fence.ownership.claim("a"));
      assert.isTrue(yield* fence.ownership.holds("a"));
    }),
  );

  it.effect("publishes each gain as a predicate of the gained keys only", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fence = yield* Ownership.make(Effect.succeed(true));
        const gains = yield* fence.ownership.gains;
        const taken = yield* Effect.forkScoped(Stream.runCollect(Stream.take(gains, 2)));
        yield* fence.assign((key) => key === "a");
        yield* fence.assign((key) => key === "a" || key === "b");
        const [first, second] = yield* Fiber.join(taken);
        assert.deepStrictEqual(
          ["a", "b", "c"].filter((key) => first?.(key) === true),
          ["a"],
        );
        assert.deepStrictEqual(
          ["a", "b", "c"].filter((key) => second?.(key) === true),
          ["b"],
        );
      }),
    ),
  );

  it.effect("a drain waits until no matching object is claimed", () =>
    Effect.gen(function* () {
      const fence = yield* Ownership.make(Effect.succeed(true));
      yield* fence.assign(Ownership.EVERYTHING);
      yield* fence.ownership.claim("a");
      yield* fence.ownership.claim("a");
      yield* fence.ownership.claim("b");
      const drained = yield* Effect.forkChild(fence.drained((key) => key === "a"));
      yield* fence.ownership.release("b");
      yield* fence.ownership.release("a");
      yield* Effect.yieldNow;
      assert.isUndefined(drained.pollUnsafe());
      yield* fence.ownership.release("a");
      yield* Fiber.join(drained);
      yield* fence.drained((key) => key === "a");
    }),
  );
});

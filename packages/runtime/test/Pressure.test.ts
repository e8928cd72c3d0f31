// Covers the per-object pressure flag: a raise cuts every sleep on it short (with the seconds
// left), a raised flag ends a sleep before it starts, a lowered one lets it elapse, and sleeps
// that ended either way leave no sleeper behind on the flag (it is kept as long as its object).
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as Pressure from "../src/Pressure.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow;
});

describe("Pressure", () => {
  it.effect("a raise wakes every sleeper with the seconds left, and none stays listed", () =>
    Effect.gen(function* () {
      const pressure = yield* Pressure.make;
      assert.isFalse(Pressure.isRaised(pressure));
      const first = yield* Effect.forkChild(Pressure.sleep(pressure, 10));
      const second = yield* Effect.forkChild(Pressure.sleep(pressure, 20));
      yield* settle;
      assert.strictEqual(pressure.sleepers?.length, 2);
      yield* TestClock.adjust("4 seconds");
      yield* Pressure.raise(pressure);
      assert.deepStrictEqual(yield* Fiber.join(first), { fully: false, left: 6 });
      assert.deepStrictEqual(yield* Fiber.join(second), { fully: false, left: 16 });
      assert.isTrue(Pressure.isRaised(pressure));
      assert.isUndefined(pressure.sleepers);
    }),
  );

  it.effect("a raised flag cuts a sleep before it starts; a lowered one lets it elapse", () =>
    Effect.gen(function* () {
      const pressure = Pressure.makeUnsafe(true);
      assert.deepStrictEqual(yield* Pressure.sleep(pressure, 5), { fully: false, left: 5 });
      yield* Pressure.clear(pressure);
      const sleeping = yield* Effect.forkChild(Pressure.sleep(pressure, 5));
      yield* settle;
      yield* TestClock.adjust("5 seconds");
      assert.deepStrictEqual(yield* Fiber.join(sleeping), { fully: true, left: 0 });
      // The elapsed sleep left the list: a later raise wakes nobody and keeps nothing.
      assert.isUndefined(pressure.sleepers);
      yield* Pressure.raise(pressure);
      assert.isUndefined(pressure.sleepers);
      assert.deepStrictEqual(yield* Pressure.sleep(pressure, 0), { fully: true, left: 0 });
    }),
  );

  it.effect("an interrupted sleep leaves the list too", () =>
    Effect.gen(function* () {
      const pressure = yield* Pressure.make;
      const sleeping = yield* Effect.forkChild(Pressure.sleep(pressure, 5));
      yield* settle;
      assert.strictEqual(pressure.sleepers?.length, 1);
      yield* Fiber.interrupt(sleeping);
      assert.isUndefined(pressure.sleepers);
    }),
  );
});

// Covers the interpreter of the adaptive cycle limit in virtual time: it reads the event loop's
// load only while cycles wait for a slot (an idle operator is never woken by it), lowers the slots a
// step per reading of a saturated loop, raises them a step per reading with slack, and says so in a
// debug line and to its observer (the gauge).
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import * as CycleLimiting from "../../src/internal/cycleLimiting.ts";
import * as CycleSlots from "../../src/internal/cycleSlots.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow;
});

/** A load whose value the test sets, counting its readings. */
const scripted = (initial: number) => {
  const state = { utilization: initial, readings: 0 };
  const load = {
    reader: () => () => {
      state.readings += 1;
      return state.utilization;
    },
  };
  return { state, load };
};

/** Holds `n` cycles in `slots` until `release` is called. */
const holdMany = (slots: CycleSlots.Slots, n: number) =>
  Effect.gen(function* () {
    const releases: Array<() => void> = [];
    for (let i = 0; i < n; i++)
      yield* Effect.forkChild(
        slots.hold(() =>
          Effect.callback<void>((resume) => {
            releases.push(() => resume(Effect.void));
          }),
        ),
      );
    yield* settle;
    return () => {
      for (const release of releases.splice(0)) release();
    };
  });

describe("CycleLimiting", () => {
  it.effect("reads nothing while no cycle waits", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(8);
      const { state, load } = scripted(1);
      yield* Effect.forkChild(CycleLimiting.adapt(slots, load, 8, "things", () => {}));
      const release = yield* holdMany(slots, 8); // all slots taken, none waiting
      yield* TestClock.adjust("10 seconds");
      yield* settle;
      assert.strictEqual(state.readings, 0);
      assert.strictEqual(slots.limit(), 8);
      release();
    }),
  );

  it.effect("steps down on a saturated loop, up with slack, and stops reading when none waits", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const slots = CycleSlots.make(8);
      const { state, load } = scripted(0.97);
      const observed: Array<number> = [];
      yield* Effect.forkChild(CycleLimiting.adapt(slots, load, 8, "things", (limit) => observed.push(limit)));
      const first = yield* holdMany(slots, 8);
      const admitted: Array<number> = [];
      for (let i = 0; i < 6; i++) slots.admit(() => admitted.push(i));
      yield* settle;
      // A reading of a saturated loop: a step down (the 8 in flight go on).
      yield* TestClock.adjust("100 millis");
      yield* settle;
      assert.strictEqual(slots.limit(), 7);
      assert.strictEqual(state.readings, 2); // the baseline, then the reading
      assert.isTrue(lines.includes("Cycles in flight for things: at most 7 (was 8)."), lines.join("\n"));
      // Three more: down to half of the configured limit, and no further.
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("100 millis");
        yield* settle;
      }
      assert.strictEqual(slots.limit(), 4);
      assert.strictEqual(state.readings, 7);
      assert.deepStrictEqual(observed, [7, 6, 5, 4]);
      // The 8 end: 4 slots go away, 4 go to the waiting objects.
      first();
      yield* settle;
      assert.deepStrictEqual(admitted, [0, 1, 2, 3]);
      // Slack while 2 wait: a step up per reading.
      state.utilization = 0.3;
      yield* TestClock.adjust("100 millis");
      yield* settle;
      assert.strictEqual(slots.limit(), 5);
      assert.deepStrictEqual(admitted, [0, 1, 2, 3, 4]);
      yield* TestClock.adjust("100 millis");
      yield* settle;
      assert.strictEqual(slots.limit(), 6);
      assert.deepStrictEqual(admitted, [0, 1, 2, 3, 4, 5]);
      // Nothing waits any more: after this reading, no more readings.
      yield* TestClock.adjust("100 millis");
      yield* settle;
      const readings = state.readings;
      yield* TestClock.adjust("10 seconds");
      yield* settle;
      assert.strictEqual(state.readings, readings);
      assert.strictEqual(slots.limit(), 6);
      // Something waits again: readings resume, and the limit rises to the configured one at most.
      const more = yield* holdMany(slots, 12);
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.isTrue(state.readings > readings);
      assert.strictEqual(slots.limit(), 8);
      assert.deepStrictEqual(observed, [7, 6, 5, 4, 5, 6, 7, 8]);
      more();
    }).pipe(
      Effect.provide(
        Logger.layer([Logger.make((o) => lines.push((o.message as ReadonlyArray<unknown>).join(" ")))]),
      ),
      Effect.provideService(References.MinimumLogLevel, "Debug"),
    );
  });
});

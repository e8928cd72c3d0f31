// Covers framework-error throttling (docs/behaviour/processing.md#throttling): the delay sequence (123, 234, then the
// last reused), reset on success, no delays ⇒ no sleep, interrupted sleeps leave the deadline and
// skip events, continuation sleeps the remaining time, cancellation is never throttled, and when
// the throttler has nothing to do for a run (idle).
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Logger from "effect/Logger";
import * as Metric from "effect/Metric";
import * as Option from "effect/Option";
import { TestClock } from "effect/testing";
import * as fc from "fast-check";
import * as Metrics from "../src/Metrics.ts";
import * as Pressure from "../src/Pressure.ts";
import * as Throttler from "../src/Throttler.ts";

const cellOf = (): Throttler.Cell & { state: Throttler.Throttler } => {
  const cell = {
    state: Throttler.initial,
    get: () => cell.state,
    set: (s: Throttler.Throttler) => {
      cell.state = s;
    },
  };
  return cell;
};

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow;
});

describe("Throttler decisions", () => {
  it("is idle only until a failure, and again after a success", () => {
    const failed = Throttler.onFailure(Throttler.initial, [1], 0).state;
    assert.isTrue(Throttler.isIdle(Throttler.initial));
    assert.isFalse(Throttler.isIdle(failed));
    // Its sleep over, the object still has a throttling to end on its next success.
    assert.isFalse(Throttler.isIdle({ ...failed, activeUntil: undefined }));
    assert.isTrue(Throttler.isIdle(Throttler.onSuccess(failed).state));
  });

  it.each([
    [[123, 234], 0, 123],
    [[123, 234], 1, 234],
    [[123, 234], 2, 234],
    [[123, 234], 5, 234],
  ])("delays %j after %d failures ⇒ %d", (delays, failures, expected) => {
    let state = Throttler.initial;
    for (let i = 0; i < failures; i++) state = Throttler.onFailure(state, delays, 0).state;
    assert.strictEqual(Throttler.onFailure(state, delays, 0).delay, expected);
  });

  it("no delays ⇒ no throttling", () => {
    const next = Throttler.onFailure(Throttler.initial, [], 0);
    assert.strictEqual(next.delay, undefined);
    assert.strictEqual(next.state.activeUntil, undefined);
  });

  it("success resets the sequence", () => {
    const failed = Throttler.onFailure(Throttler.initial, [1, 2], 0).state;
    const reset = Throttler.onSuccess(failed);
    assert.isTrue(reset.wasThrottled);
    assert.deepStrictEqual(reset.state, Throttler.initial);
    assert.isFalse(Throttler.onSuccess(Throttler.initial).wasThrottled);
  });

  it("delays always come from the sequence or repeat its last value", () =>
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 10 }), fc.nat(30), (delays, failures) => {
        let state = Throttler.initial;
        const used: Array<number> = [];
        for (let i = 0; i < failures; i++) {
          const next = Throttler.onFailure(state, delays, 0);
          state = next.state;
          used.push(next.delay as number);
        }
        const expected = Array.from({ length: failures }, (_, i) => delays[Math.min(i, delays.length - 1)]);
        assert.deepStrictEqual(used, expected);
      }),
    ));
});

describe("Throttler.throttled", () => {
  it.effect("throttles after a failure, skips events meanwhile, and logs its end", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const cell = cellOf();
      const pressure = yield* Pressure.make;
      const failing = Effect.fail(new Error("boom"));
      const fiber = yield* Effect.forkChild(
        Throttler.throttled({ cell, delays: [123, 234], pressure }, failing),
      );
      yield* settle;
      assert.strictEqual(cell.state.lastDelay, 123);
      assert.isTrue(
        lines.some((l) => l.startsWith("Error Throttling for 123 seconds due to an unexpected error")),
      );
      // A new event interrupts the sleep: the deadline stays.
      yield* TestClock.adjust("23 seconds");
      yield* Pressure.raise(pressure);
      yield* Fiber.join(fiber);
      assert.strictEqual(cell.state.activeUntil, 123_000);
      // While throttled (pressure still raised), the next event is skipped.
      let ran = 0;
      const ok = Effect.sync(() => {
        ran += 1;
        return "ok";
      });
      const skipped = yield* Throttler.throttled({ cell, delays: [123, 234], pressure }, ok);
      assert.isTrue(Option.isNone(skipped));
      assert.strictEqual(ran, 0);
      // Without pressure, the continuation sleeps the remaining 100 s, then runs.
      yield* Pressure.clear(pressure);
      const resumed = yield* Effect.forkChild(
        Throttler.throttled({ cell, delays: [123, 234], pressure }, ok),
      );
      yield* settle;
      yield* TestClock.adjust("99 seconds");
      yield* settle;
      assert.strictEqual(ran, 0);
      yield* TestClock.adjust("1 second");
      const result = yield* Fiber.join(resumed);
      assert.deepStrictEqual(result, Option.some("ok"));
      assert.deepStrictEqual(cell.state, Throttler.initial);
      assert.isTrue(lines.includes("Info Throttling is over. Switching back to normal operations."));
    }).pipe(
      Effect.provide(
        Logger.layer([
          Logger.make((o) => lines.push(`${o.logLevel} ${(o.message as ReadonlyArray<unknown>)[0]}`)),
        ]),
      ),
    );
  });

  it.effect("counts the throttled objects of the current event's resource while they sleep", () =>
    Effect.gen(function* () {
      const cell = cellOf();
      const labels = { resource: "kopfexamples.v1.kopf.dev" };
      const gauge = Effect.map(
        Metric.value(Metric.withAttributes(Metrics.objectsThrottled, labels)),
        (state) => state.value,
      );
      const fiber = yield* Effect.forkChild(
        Throttler.throttled({ cell, delays: [5] }, Effect.fail(new Error("boom"))).pipe(
          Effect.provideService(Metrics.CurrentEvent, { ...labels, arrived: 0 }),
        ),
      );
      yield* settle;
      assert.strictEqual(yield* gauge, 1);
      const started = yield* Metric.value(Metric.withAttributes(Metrics.throttlings, labels));
      assert.strictEqual(started.count, 1);
      yield* TestClock.adjust("5 seconds");
      yield* Fiber.join(fiber);
      assert.strictEqual(yield* gauge, 0);
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map()), Effect.provide(Logger.layer([]))),
  );

  it.effect("empty delays: no sleep, the next event runs", () =>
    Effect.gen(function* () {
      const cell = cellOf();
      const first = yield* Throttler.throttled({ cell, delays: [] }, Effect.die("bug"));
      assert.isTrue(Option.isNone(first));
      const second = yield* Throttler.throttled({ cell, delays: [] }, Effect.succeed(1));
      assert.deepStrictEqual(second, Option.some(1));
    }).pipe(Effect.provide(Logger.layer([]))),
  );

  it.effect("interruption escalates and is never throttled", () =>
    Effect.gen(function* () {
      const cell = cellOf();
      const exit = yield* Effect.exit(Throttler.throttled({ cell, delays: [1] }, Effect.interrupt));
      assert.strictEqual(exit._tag, "Failure");
      assert.deepStrictEqual(cell.state, Throttler.initial);
    }),
  );
});

describe("Throttler after its time is up", () => {
  it.effect("runs the next event even when newer events wait (the deadline has passed)", () =>
    Effect.gen(function* () {
      const cell = cellOf();
      cell.state = { activeUntil: 1000, used: 1, lastDelay: 1 };
      yield* TestClock.adjust("2 seconds");
      const pressure = yield* Pressure.make;
      yield* Pressure.raise(pressure);
      const result = yield* Throttler.throttled({ cell, delays: [1], pressure }, Effect.succeed("ran")).pipe(
        Effect.provide(Logger.layer([])),
      );
      assert.deepStrictEqual(result, Option.some("ran"));
    }),
  );
});

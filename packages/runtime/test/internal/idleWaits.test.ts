// Covers the queues' idle waits in virtual time: a park ends when its doorbell rings or at its
// deadline (never before, never later), parks of any deadline order each end on time under the one
// timer, a doorbell parked again ends at its new deadline only, the timer ends once nothing is
// parked, and an interrupted timer is replaced by the next park's.
import { assert, describe, it } from "@effect/vitest";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as FiberSet from "effect/FiberSet";
import { TestClock } from "effect/testing";
import * as fc from "fast-check";
import * as IdleWaits from "../../src/internal/idleWaits.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow;
});

/** Idle waits whose timer fibers are kept for inspection. */
const makeWaits = Effect.gen(function* () {
  const timers: Array<Fiber.Fiber<void>> = [];
  const fork = yield* FiberSet.runtime(yield* FiberSet.make<void, never>())();
  const waits = IdleWaits.make((effect) => {
    const fiber = fork(effect);
    timers.push(fiber);
    return fiber;
  });
  return { waits, timers };
});

/** When (virtual milliseconds) and how a park ended; empty while it lasts. */
interface Ended {
  at?: number;
  rung?: boolean;
}

/** Parks at `bell` for `millis` and records when and how the park ended. */
const started = (waits: IdleWaits.IdleWaits, bell: IdleWaits.Doorbell, millis: number) =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock;
    const ended: Ended = {};
    waits.park(bell, clock.currentTimeMillisUnsafe() + millis, (rung) => {
      ended.rung = rung;
      ended.at = clock.currentTimeMillisUnsafe();
    });
    yield* settle;
    return { ended };
  });

describe("IdleWaits", () => {
  it.effect("a rung wait ends at once with true, and its deadline later changes nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { waits } = yield* makeWaits;
        const bell = IdleWaits.doorbell();
        const { ended } = yield* started(waits, bell, 5000);
        assert.isDefined(bell.ring);
        yield* TestClock.adjust("1 second");
        IdleWaits.ring(bell);
        yield* settle;
        assert.deepStrictEqual(ended, { rung: true, at: 1000 });
        assert.isUndefined(bell.ring);
        yield* TestClock.adjust("10 seconds");
        yield* settle;
        assert.deepStrictEqual(ended, { rung: true, at: 1000 });
      }),
    ),
  );

  it.effect("an unrung wait ends with false at its deadline, not a millisecond before", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { waits } = yield* makeWaits;
        const bell = IdleWaits.doorbell();
        const { ended } = yield* started(waits, bell, 5000);
        yield* TestClock.adjust("4999 millis");
        yield* settle;
        assert.deepStrictEqual(ended, {});
        yield* TestClock.adjust("1 millis");
        yield* settle;
        assert.deepStrictEqual(ended, { rung: false, at: 5000 });
        assert.isUndefined(bell.ring);
      }),
    ),
  );

  it.effect("a shorter wait started after a longer one still ends at its own deadline", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { waits } = yield* makeWaits;
        const long = yield* started(waits, IdleWaits.doorbell(), 10_000);
        const short = yield* started(waits, IdleWaits.doorbell(), 3000);
        yield* TestClock.adjust("3 seconds");
        yield* settle;
        assert.deepStrictEqual(short.ended, { rung: false, at: 3000 });
        assert.deepStrictEqual(long.ended, {});
        yield* TestClock.adjust("7 seconds");
        yield* settle;
        assert.deepStrictEqual(long.ended, { rung: false, at: 10_000 });
      }),
    ),
  );

  it.effect("a doorbell parked again after a ring ends at its new deadline, not the old one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { waits } = yield* makeWaits;
        const bell = IdleWaits.doorbell();
        const first = yield* started(waits, bell, 2000);
        yield* TestClock.adjust("1 second");
        IdleWaits.ring(bell);
        assert.deepStrictEqual(first.ended, { rung: true, at: 1000 });
        const second = yield* started(waits, bell, 5000);
        yield* TestClock.adjust("1 second");
        yield* settle;
        assert.deepStrictEqual(second.ended, {});
        assert.isDefined(bell.ring);
        yield* TestClock.adjust("4 seconds");
        yield* settle;
        assert.deepStrictEqual(second.ended, { rung: false, at: 6000 });
        assert.deepStrictEqual(first.ended, { rung: true, at: 1000 });
      }),
    ),
  );

  it.effect("the timer ends once no wait is left, and a later wait starts another", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { waits, timers } = yield* makeWaits;
        const first = yield* started(waits, IdleWaits.doorbell(), 1000);
        const bell = IdleWaits.doorbell();
        yield* started(waits, bell, 5000);
        IdleWaits.ring(bell);
        yield* TestClock.adjust("1 second");
        yield* settle;
        assert.deepStrictEqual(first.ended, { rung: false, at: 1000 });
        // The rung wait's entry is passed over: nothing waits, so the timer has ended.
        assert.strictEqual(timers.length, 1);
        assert.isDefined(timers[0]?.pollUnsafe());
        const second = yield* started(waits, IdleWaits.doorbell(), 1000);
        yield* TestClock.adjust("1 second");
        yield* settle;
        assert.deepStrictEqual(second.ended, { rung: false, at: 2000 });
        assert.strictEqual(timers.length, 2);
        assert.isDefined(timers[1]?.pollUnsafe());
      }),
    ),
  );

  it.effect("a wait after the timer was interrupted starts another, which serves the earlier waits too", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const first = yield* FiberSet.make<void, never>();
        const intoFirst = yield* FiberSet.runtime(first)();
        const intoSecond = yield* FiberSet.runtime(yield* FiberSet.make<void, never>())();
        let cleared = false;
        const waits = IdleWaits.make((effect) => (cleared ? intoSecond(effect) : intoFirst(effect)));
        const early = yield* started(waits, IdleWaits.doorbell(), 1000);
        yield* FiberSet.clear(first);
        cleared = true;
        const late = yield* started(waits, IdleWaits.doorbell(), 2000);
        yield* TestClock.adjust("2 seconds");
        yield* settle;
        assert.deepStrictEqual(early.ended, { rung: false, at: 1000 });
        assert.deepStrictEqual(late.ended, { rung: false, at: 2000 });
      }),
    ),
  );

  it.effect(
    "property: every wait ends at the earlier of its ring and its deadline, rung iff rung first",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                start: fc.integer({ min: 0, max: 20 }),
                millis: fc.integer({ min: 0, max: 30 }),
                ring: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
              }),
              { minLength: 1, maxLength: 12 },
            ),
            (plans) =>
              Effect.runPromise(
                Effect.gen(function* () {
                  const { waits } = yield* makeWaits;
                  const bells = plans.map(() => IdleWaits.doorbell());
                  const ends: Array<Ended | undefined> = plans.map(() => undefined);
                  for (let now = 0; now <= 60; now++) {
                    for (const [i, plan] of plans.entries()) {
                      const bell = bells[i] as IdleWaits.Doorbell;
                      if (plan.start === now) ends[i] = (yield* started(waits, bell, plan.millis)).ended;
                      if (plan.ring !== undefined && plan.start + plan.ring === now) IdleWaits.ring(bell);
                    }
                    yield* settle;
                    yield* TestClock.adjust("1 millis");
                  }
                  yield* settle;
                  for (const [i, plan] of plans.entries()) {
                    const deadline = plan.start + plan.millis;
                    const rungAt = plan.ring === undefined ? undefined : plan.start + plan.ring;
                    // A ring in the deadline's millisecond is too late: the Clock got there first.
                    const expected =
                      rungAt !== undefined && rungAt < deadline
                        ? { rung: true, at: rungAt }
                        : { rung: false, at: deadline };
                    assert.deepStrictEqual(ends[i], expected, `wait ${i}: ${JSON.stringify(plan)}`);
                  }
                }).pipe(Effect.scoped, Effect.provide(TestClock.layer())),
              ),
          ),
          { numRuns: 60 },
        ),
      ),
  );
});

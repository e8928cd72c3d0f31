/**
 * The timer schedule (docs/behaviour/daemons-timers.md#timers) as tables: temporary failures retry after their delay; a
 * permanent failure stops (this port's documented choice); sharp intervals keep the grid; plain
 * intervals count from the end; idle-only timers wait for a change; one-shot timers stop.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as Timing from "../../src/internal/timing.ts";

const run = (final: boolean, failed: boolean, delay: number | undefined, started: number, now: number) => ({
  final,
  failed,
  delay,
  started,
  now,
});

describe("afterRun", () => {
  it.each([
    [run(false, true, 5, 0, 1), { interval: 10, sharp: false, idle: undefined }, { _tag: "Retry", delay: 5 }],
    [
      run(false, true, undefined, 0, 1),
      { interval: 10, sharp: false, idle: undefined },
      { _tag: "Retry", delay: 0 },
    ],
    [
      run(true, true, undefined, 0, 1),
      { interval: 10, sharp: false, idle: undefined },
      { _tag: "Stop", failed: true },
    ],
    [
      run(true, false, undefined, 0, 3),
      { interval: 10, sharp: true, idle: undefined },
      { _tag: "Sleep", delay: 7 },
    ],
    [
      run(true, false, undefined, 0, 13),
      { interval: 10, sharp: true, idle: undefined },
      { _tag: "Sleep", delay: 7 },
    ],
    [
      run(true, false, undefined, 0, 3),
      { interval: 10, sharp: false, idle: undefined },
      { _tag: "Sleep", delay: 10 },
    ],
    [
      run(true, false, undefined, 0, 3),
      { interval: undefined, sharp: false, idle: 5 },
      { _tag: "AwaitChange" },
    ],
    [
      run(true, false, undefined, 0, 3),
      { interval: 10, sharp: false, idle: 5 },
      { _tag: "Sleep", delay: 10 },
    ],
    [
      run(true, false, undefined, 0, 3),
      { interval: undefined, sharp: false, idle: undefined },
      { _tag: "Stop", failed: false },
    ],
  ] as const)("%j with %j ⇒ %j", (outcome, schedule, expected) => {
    assert.deepStrictEqual(Timing.afterRun(outcome, schedule), expected as Timing.Next);
  });

  it("property: sharp timers always land on the grid", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (interval, started, duration) => {
          const next = Timing.afterRun(run(true, false, undefined, started, started + duration), {
            interval,
            sharp: true,
            idle: undefined,
          });
          return next._tag === "Sleep" && (duration + next.delay) % interval === 0 && next.delay > 0;
        },
      ),
    );
  });
});

describe("idleLeft", () => {
  it.each([
    [{ idle: 10, lastChange: 100, now: 104 }, 6],
    [{ idle: 10, lastChange: 100, now: 110 }, 0],
    [{ idle: 10, lastChange: 100, now: 200 }, 0],
  ])("%j ⇒ %s", (input, expected) => {
    assert.strictEqual(Timing.idleLeft(input), expected);
  });
});

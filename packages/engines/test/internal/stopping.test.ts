/**
 * The stopping steps (docs/behaviour/daemons-timers.md#stopping-on-deletion, docs/behaviour/daemons-timers.md#operator-exit) as tables: exited ⇒ nothing; within the backoff ⇒ signal
 * with the rest of it; within backoff + timeout ⇒ cancel with the rest; after ⇒ abandon; no
 * timeout ⇒ poll. The exit plan's stages in order.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as Stopping from "../../src/internal/stopping.ts";

const opts = (backoff?: number, timeout?: number, polling = 60): Stopping.Cancellation => ({
  backoff,
  timeout,
  polling,
});

describe("step", () => {
  it.each([
    [true, 0, opts(5, 10), { _tag: "Exited" }],
    [false, 0, opts(5, 10), { _tag: "Signal", delay: 5 }],
    [false, 4, opts(5, 10), { _tag: "Signal", delay: 1 }],
    [false, 5, opts(5, 10), { _tag: "Cancel", delay: 10 }],
    [false, 14, opts(5, 10), { _tag: "Cancel", delay: 1 }],
    [false, 15, opts(5, 10), { _tag: "Abandon" }],
    [false, 0, opts(undefined, 3), { _tag: "Cancel", delay: 3 }],
    [false, 3, opts(undefined, 3), { _tag: "Abandon" }],
    [false, 0, opts(5, undefined, 7), { _tag: "Signal", delay: 5 }],
    [false, 6, opts(5, undefined, 7), { _tag: "Poll", delay: 7 }],
    [false, 100, opts(undefined, undefined, 60), { _tag: "Poll", delay: 60 }],
  ] as const)("exited=%s age=%s %j ⇒ %j", (exited, age, options, expected) => {
    assert.deepStrictEqual(Stopping.step({ exited, age, options }), expected as Stopping.Step);
  });

  it("property: delays are positive and never exceed the remaining budget", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.option(fc.double({ min: 0.1, max: 50, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 0.1, max: 50, noNaN: true }), { nil: undefined }),
        (age, backoff, timeout) => {
          const step = Stopping.step({ exited: false, age, options: opts(backoff, timeout, 60) });
          if (step._tag === "Signal") return step.delay > 0 && step.delay <= (backoff ?? 0);
          if (step._tag === "Cancel")
            return step.delay > 0 && age + step.delay <= (backoff ?? 0) + (timeout ?? 0) + 1e-9;
          if (step._tag === "Abandon") return timeout !== undefined && age >= (backoff ?? 0) + timeout;
          return step._tag === "Poll" && timeout === undefined;
        },
      ),
    );
  });
});

describe("exitPlan", () => {
  it.each([
    [opts(), [{ _tag: "Abandon" }]],
    [opts(5), [{ _tag: "Signal", wait: 5 }, { _tag: "Abandon" }]],
    [opts(undefined, 3), [{ _tag: "Cancel", wait: 3 }, { _tag: "Abandon" }]],
    [opts(5, 3), [{ _tag: "Signal", wait: 5 }, { _tag: "Cancel", wait: 3 }, { _tag: "Abandon" }]],
  ])("%j ⇒ %j", (options, expected) => {
    assert.deepStrictEqual(Stopping.exitPlan(options), expected as ReadonlyArray<Stopping.ExitStage>);
  });
});

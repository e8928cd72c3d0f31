// Covers the stop order of the operator's halves: on interruption the foreground's own stop
// (e.g. its queues draining) completes before `between` runs, and the background is interrupted
// only after both; `stopping` is said first. A failing background stops the foreground first,
// then fails the whole with its error; a failing foreground stops the background after it; both
// completing end the whole with no stop (and no `stopping`).
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as StopOrder from "../../src/internal/stopOrder.ts";

/** A half that runs until interrupted, then takes `drain` ms to stop, and says so. */
const half = (log: Array<string>, name: string, drain: number) =>
  Effect.andThen(
    Effect.sync(() => log.push(`${name} running`)),
    Effect.never.pipe(
      Effect.onInterrupt(() =>
        Effect.andThen(
          Effect.sleep(drain),
          Effect.sync(() => log.push(`${name} stopped`)),
        ),
      ),
    ),
  );

const steps = (log: Array<string>) => ({
  stopping: Effect.sync(() => log.push("stopping")),
  between: Effect.sync(() => log.push("between")),
});

describe("StopOrder", () => {
  it.live("on interruption: stopping, the foreground drained, between, then the background", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      const fiber = yield* Effect.forkChild(
        StopOrder.run({
          foreground: half(log, "front", 50),
          background: half(log, "back", 0),
          ...steps(log),
        }),
      );
      yield* Effect.sleep(20);
      yield* Fiber.interrupt(fiber);
      const exit = yield* Fiber.await(fiber);
      assert.isTrue(Exit.hasInterrupts(exit));
      assert.deepStrictEqual(log.slice(2), ["stopping", "front stopped", "between", "back stopped"]);
    }),
  );

  it.live("a failing background stops the foreground first, and its error is the outcome", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      const exit = yield* Effect.exit(
        StopOrder.run({
          foreground: half(log, "front", 30),
          background: Effect.andThen(Effect.sleep(10), Effect.fail("task failed" as const)),
          ...steps(log),
        }),
      );
      assert.deepStrictEqual(exit, Exit.fail("task failed"));
      assert.deepStrictEqual(log, ["front running", "stopping", "front stopped", "between"]);
    }),
  );

  it.live("a failing foreground stops the background after between", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      const exit = yield* Effect.exit(
        StopOrder.run({
          foreground: Effect.andThen(Effect.sleep(10), Effect.fail("watch failed" as const)),
          background: half(log, "back", 0),
          ...steps(log),
        }),
      );
      assert.deepStrictEqual(exit, Exit.fail("watch failed"));
      // The foreground had ended: nothing to announce.
      assert.deepStrictEqual(log, ["back running", "between", "back stopped"]);
    }),
  );

  it.live("both completing on their own end the whole with no stop", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      const exit = yield* Effect.exit(
        StopOrder.run({ foreground: Effect.sleep(5), background: Effect.sleep(10), ...steps(log) }),
      );
      assert.isTrue(Exit.isSuccess(exit));
      assert.deepStrictEqual(log, ["between"]);
    }),
  );
});

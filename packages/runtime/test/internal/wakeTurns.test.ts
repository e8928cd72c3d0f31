// Covers the queues' wake-up turns: items woken in one task are served together in one later turn,
// in order, after the waking code has returned; an item woken during a turn joins it; nothing is
// served once stopped; a turn after a turn starts afresh; a serve that throws leaves the rest of
// its items to the next turn, and later wake-ups are served as before.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as FiberSet from "effect/FiberSet";
import * as WakeTurns from "../../src/internal/wakeTurns.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow;
});

/** Turns whose forks are counted and whose served items are recorded with the turn they were in. */
const makeTurns = (onServe: (item: string, turns: WakeTurns.WakeTurns<string>) => void = () => {}) =>
  Effect.gen(function* () {
    const run = yield* FiberSet.runtime(yield* FiberSet.make<void, never>())();
    const served: Array<string> = [];
    let forks = 0;
    let stopped = false;
    const turns: WakeTurns.WakeTurns<string> = WakeTurns.make(
      (effect) => {
        forks += 1;
        return run(effect);
      },
      (item) => {
        served.push(`${item}@${forks}`);
        onServe(item, turns);
      },
      () => stopped,
    );
    return {
      turns,
      served,
      forks: () => forks,
      stop: () => {
        stopped = true;
      },
    };
  });

describe("WakeTurns", () => {
  it.effect("serves the items woken in one task together, in order, after that task", () =>
    Effect.gen(function* () {
      const { turns, served, forks } = yield* makeTurns();
      turns.wake("a");
      turns.wake("b");
      turns.wake("c");
      // Not on the waker's stack.
      assert.deepStrictEqual(served, []);
      yield* settle;
      assert.deepStrictEqual(served, ["a@1", "b@1", "c@1"]);
      assert.strictEqual(forks(), 1);
      // The next wake-up starts a new turn.
      turns.wake("d");
      yield* settle;
      assert.deepStrictEqual(served, ["a@1", "b@1", "c@1", "d@2"]);
      assert.strictEqual(forks(), 2);
    }).pipe(Effect.scoped),
  );

  it.effect("an item woken while a turn runs is served in that turn", () =>
    Effect.gen(function* () {
      const { turns, served, forks } = yield* makeTurns((item, turns) => {
        if (item === "a") turns.wake("late");
      });
      turns.wake("a");
      turns.wake("b");
      yield* settle;
      assert.deepStrictEqual(served, ["a@1", "b@1", "late@1"]);
      assert.isAtMost(forks(), 2);
    }).pipe(Effect.scoped),
  );

  it.effect("serves nothing once stopped, woken before or after", () =>
    Effect.gen(function* () {
      const { turns, served, stop } = yield* makeTurns();
      turns.wake("a");
      stop();
      turns.wake("b");
      yield* settle;
      assert.deepStrictEqual(served, []);
    }).pipe(Effect.scoped),
  );

  it.effect("a serve that throws ends its turn: the items left get the next one, and wake-ups go on", () =>
    Effect.gen(function* () {
      const { turns, served, forks } = yield* makeTurns((item) => {
        if (item === "b") throw new Error("boom");
      });
      turns.wake("a");
      turns.wake("b");
      turns.wake("c");
      yield* settle;
      assert.deepStrictEqual(served, ["a@1", "b@1", "c@2"]);
      turns.wake("d");
      yield* settle;
      assert.deepStrictEqual(served, ["a@1", "b@1", "c@2", "d@3"]);
      assert.strictEqual(forks(), 3);
    }).pipe(Effect.scoped),
  );
});

/**
 * Timers end to end in virtual time (docs/behaviour/daemons-timers.md#timers): the interval counted from the end of the call,
 * sharp intervals on a fixed grid, idle timers waiting for the object to stay unchanged, the
 * initial delay, errors overriding the schedule (backoff, then a fresh round), a permanently
 * failed timer stopping for good (this port's documented choice), and no overlap with itself.
 */
import { assert, describe, it } from "@effect/vitest";
import { PermanentError, Registry } from "@kopf/registry";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Daemons from "../src/Daemons.ts";
import * as H from "./fixtures/Harness.ts";

const operate = (registry: Registry.Registry<any>) =>
  Effect.gen(function* () {
    const daemons = yield* Daemons.make;
    yield* H.start(registry, { engines: { spawning: daemons.spawning } });
    return daemons;
  });

/** Records the virtual second of every call (relative to the object's creation). */
const recorder = () => {
  const calls: Array<number> = [];
  let origin = 0;
  return {
    calls,
    mark: Effect.map(Clock.currentTimeMillis, (ms) => {
      origin = ms;
    }),
    record: (ms: number) => calls.push(Math.round((ms - origin) / 100) / 10),
  };
};

describe("timers", () => {
  it.effect("interval: from the end of each call; sharp: on a fixed grid", () =>
    H.run(() =>
      Effect.gen(function* () {
        const plain = recorder();
        const sharp = recorder();
        const registry = Registry.make();
        registry.on.timer(H.RES, { interval: 10 }, function plainTimer() {
          return Effect.gen(function* () {
            plain.record(yield* Clock.currentTimeMillis);
            yield* Effect.sleep("3 seconds");
          });
        });
        registry.on.timer(H.RES, { interval: 10, sharp: true }, function sharpTimer() {
          return Effect.gen(function* () {
            sharp.record(yield* Clock.currentTimeMillis);
            yield* Effect.sleep("3 seconds");
          });
        });
        yield* operate(registry);
        yield* plain.mark;
        yield* sharp.mark;
        yield* H.create("e1");
        yield* H.settle(35);
        assert.deepStrictEqual(plain.calls.slice(0, 3), [0, 13, 26]);
        assert.deepStrictEqual(sharp.calls.slice(0, 4), [0, 10, 20, 30]);
      }),
    ),
  );

  it.effect("idle: runs once the object stayed unchanged for `idle` seconds, again after a change", () =>
    H.run(() =>
      Effect.gen(function* () {
        const idle = recorder();
        const registry = Registry.make();
        registry.on.timer(H.RES, { idle: 5 }, function idler() {
          return Effect.map(Clock.currentTimeMillis, idle.record);
        });
        yield* operate(registry);
        yield* idle.mark;
        yield* H.create("e1");
        yield* H.settle(3);
        yield* H.patch("e1", { spec: { field: "changed" } }); // at ~3 s: the countdown restarts
        yield* H.settle(10);
        assert.strictEqual(idle.calls.length, 1);
        assert.approximately(idle.calls[0] ?? 0, 8, 0.3);
        yield* H.settle(20);
        assert.strictEqual(idle.calls.length, 1); // no change since: no second run
        yield* H.patch("e1", { spec: { field: "again" } });
        yield* H.settle(7);
        assert.strictEqual(idle.calls.length, 2);
      }),
    ),
  );

  it.effect("initial delay, then the interval", () =>
    H.run(() =>
      Effect.gen(function* () {
        const timer = recorder();
        const registry = Registry.make();
        registry.on.timer(H.RES, { interval: 4, initialDelay: 7 }, function delayed() {
          return Effect.map(Clock.currentTimeMillis, timer.record);
        });
        yield* operate(registry);
        yield* timer.mark;
        yield* H.create("e1");
        yield* H.settle(16);
        assert.deepStrictEqual(timer.calls.slice(0, 3), [7, 11, 15]);
      }),
    ),
  );

  it.effect("errors override the schedule: 3 failures with backoff 5, then the interval 10", () =>
    H.run(() =>
      Effect.gen(function* () {
        const timer = recorder();
        const retries: Array<number> = [];
        const registry = Registry.make();
        registry.on.timer(H.RES, { interval: 10, backoff: 5 }, function flaky({ retry }) {
          return Effect.gen(function* () {
            timer.record(yield* Clock.currentTimeMillis);
            retries.push(retry);
            if (retries.length <= 3) throw new Error("not yet");
          });
        });
        yield* operate(registry);
        yield* timer.mark;
        yield* H.create("e1");
        yield* H.settle(30);
        assert.deepStrictEqual(timer.calls.slice(0, 5), [0, 5, 10, 15, 25]);
        assert.deepStrictEqual(retries.slice(0, 5), [0, 1, 2, 3, 0]);
      }),
    ),
  );

  it.effect("a permanently failed timer stops for this object (and releases the finalizer)", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        let calls = 0;
        const registry = Registry.make();
        registry.on.timer(H.RES, { interval: 5 }, function broken() {
          calls += 1;
          throw new PermanentError("broken for good");
        });
        const daemons = yield* operate(registry);
        yield* H.create("e1");
        yield* H.settle(30);
        assert.strictEqual(calls, 1);
        assert.strictEqual(daemons.running().size, 0);
        assert.isTrue(H.logged(lines, "Timer 'broken' has failed permanently"));
        yield* H.patch("e1", { spec: { field: "changed" } });
        yield* H.settle(10);
        assert.strictEqual(calls, 1);
        assert.notInclude((yield* H.get("e1"))?.metadata?.finalizers ?? [], H.FINALIZER);
      }),
    ),
  );

  it.effect("results go to status after every run; deletion stops the timer", () =>
    H.run(() =>
      Effect.gen(function* () {
        let calls = 0;
        const registry = Registry.make();
        registry.on.timer(H.RES, { interval: 2 }, function counter() {
          calls += 1;
          return { calls };
        });
        yield* operate(registry);
        yield* H.create("e1");
        yield* H.settle(5);
        assert.deepStrictEqual(((yield* H.get("e1"))?.status as any)?.counter, { calls: 3 });
        yield* H.remove("e1");
        yield* H.settle(3);
        assert.isUndefined(yield* H.get("e1"));
        const after = calls;
        yield* H.settle(5);
        assert.strictEqual(calls, after);
      }),
    ),
  );
});

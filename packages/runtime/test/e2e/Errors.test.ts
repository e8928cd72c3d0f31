// End to end in virtual time (docs/behaviour/processing.md#lifecycles, docs/behaviour/processing.md#errors-and-retries, docs/behaviour/processing.md#sub-handlers, docs/behaviour/processing.md#delays-and-the-touch-dummy, docs/behaviour/progress.md#records): temporary errors persist progress
// in Kopf's annotation format and are retried after their delay through the touch-dummy;
// permanent errors, retry limits, timeouts with look-ahead, ignored errors and the asap
// lifecycle; sub-handlers persisted under their own keys.
import { assert, describe, it } from "@effect/vitest";
import { Lifecycles, PermanentError, Registry, TemporaryError } from "@kopf/registry";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

/** Kopf's time format (microseconds, `+00:00`) of epoch milliseconds. */
const kopfTime = (millis: number) => new Date(millis).toISOString().replace("Z", "000+00:00");

const record = (body: { metadata?: { annotations?: Record<string, string> } }, key: string) => {
  const raw = body.metadata?.annotations?.[`kopf.zalando.org/${key}`];
  return raw === undefined ? undefined : (JSON.parse(raw) as Record<string, unknown>);
};

describe("error modes end to end", () => {
  it.effect("a TemporaryError is recorded, slept out, re-triggered by a touch, then succeeds", () =>
    Harness.scenario(({ lines, log, ns, epoch }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const times: Array<number> = [];
        registry.on.create(RES, function createFn() {
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            times.push(now);
            return times.length === 1
              ? Effect.fail(new TemporaryError("not yet", { delay: 10 }))
              : Effect.succeed("done");
          });
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(1);

        const pending = yield* Harness.get("e1");
        // Byte for byte as Kopf stores it (virtual time: created 0.5 s after the scenario began).
        assert.strictEqual(
          pending.metadata?.annotations?.["kopf.zalando.org/createFn"],
          `{"started":"${kopfTime(epoch + 500)}","delayed":"${kopfTime(epoch + 10_500)}",` +
            '"purpose":"create","retries":1,"success":false,"failure":false,"message":"not yet"}',
        );
        const progress = record(pending, "createFn");
        assert.deepStrictEqual(Object.keys(progress ?? {}), [
          "started",
          "delayed",
          "purpose",
          "retries",
          "success",
          "failure",
          "message",
        ]);
        assert.match(String(progress?.started), ISO);
        assert.match(String(progress?.delayed), ISO);
        assert.strictEqual(
          Date.parse(String(progress?.delayed)) - Date.parse(String(progress?.started)),
          10_000,
        );
        assert.deepStrictEqual(
          { ...progress, started: undefined, delayed: undefined },
          {
            started: undefined,
            delayed: undefined,
            purpose: "create",
            retries: 1,
            success: false,
            failure: false,
            message: "not yet",
          },
        );
        assert.strictEqual(pending.metadata?.annotations?.[LAST_HANDLED], undefined);
        assert.include(lines, `[${ns}/e1] Handler 'createFn' failed temporarily: not yet`);
        assert.include(lines, `[${ns}/e1] Sleeping for 10 seconds for the delayed handlers.`);

        yield* Harness.settle(11);
        const done = yield* Harness.get("e1");
        assert.strictEqual(times.length, 2);
        assert.isAtLeast((times[1] as number) - (times[0] as number), 10_000);
        assert.deepStrictEqual(Harness.annotations(done), { [LAST_HANDLED]: '{"spec":{"field":"value"}}\n' });
        assert.deepStrictEqual(done.status, { createFn: "done" });
        // The touch-dummy was set to provoke the cycle, and removed with the final patch.
        const touches = log
          .patches()
          .filter((p) => JSON.stringify(p.body).includes("touch-dummy"))
          .map(
            (p) =>
              (p.body as { metadata: { annotations: Record<string, unknown> } }).metadata.annotations[
                "kopf.zalando.org/touch-dummy"
              ],
          );
        assert.strictEqual(touches.length, 2);
        assert.match(String(touches[0]), ISO);
        assert.strictEqual(touches[1], null);
      }),
    ),
  );

  it.effect("a new event interrupts the sleep; the handler still waits for its delay", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const times: Array<number> = [];
        registry.on.create(RES, function createFn() {
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            times.push(now);
            return times.length === 1 ? Effect.fail(new TemporaryError("wait", { delay: 10 })) : Effect.void;
          });
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(1);
        assert.include(lines, `[${ns}/e1] Sleeping was skipped because of the patch, 10 seconds left.`);
        yield* Harness.settle(3);
        yield* Harness.patch("e1", { metadata: { labels: { nudge: "1" } } });
        yield* Harness.settle(1);
        assert.isTrue(
          lines.some((l) =>
            new RegExp(
              `^\\[${ns}/e1\\] Sleeping was interrupted by new changes, \\d+(\\.\\d+)? seconds left\\.$`,
            ).test(l),
          ),
        );
        assert.strictEqual(times.length, 1);
        yield* Harness.settle(8);
        assert.strictEqual(times.length, 2);
        assert.isAtLeast((times[1] as number) - (times[0] as number), 10_000);
      }),
    ),
  );

  it.effect("long delays are slept in 10-minute keep-alive steps, each ending with a touch", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, function createFn() {
          calls += 1;
          if (calls === 1) throw new TemporaryError("much later", { delay: 1000 });
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(2, 0.5);
        assert.isTrue(
          lines.some(
            (l) => l === `[${ns}/e1] Sleeping for 1000 (capped 600) seconds for the delayed handlers.`,
          ),
          lines.filter((l) => l.includes("Sleep")).join("\n"),
        );
        yield* Harness.settle(600, 5);
        assert.strictEqual(calls, 1);
        assert.isDefined((yield* Harness.get("e1")).metadata?.annotations?.["kopf.zalando.org/touch-dummy"]);
        yield* Harness.settle(400, 5);
        assert.strictEqual(calls, 2);
        assert.include(lines, `[${ns}/e1] Creation is processed: 1 succeeded; 0 failed.`);
      }),
    ),
  );

  it.effect("a PermanentError fails the handler for good; the cause is processed", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, function createFn() {
          calls += 1;
          throw new PermanentError("no way");
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(120);
        assert.strictEqual(calls, 1);
        assert.include(lines, `[${ns}/e1] Handler 'createFn' failed permanently: no way`);
        assert.include(lines, `[${ns}/e1] Creation is processed: 0 succeeded; 1 failed.`);
        assert.deepStrictEqual(Harness.annotations(yield* Harness.get("e1")), {
          [LAST_HANDLED]: '{"spec":{"field":"value"}}\n',
        });
      }),
    ),
  );

  it.effect("arbitrary errors are retried after the backoff until the retries limit (look-ahead)", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const times: Array<number> = [];
        registry.on.create(RES, { backoff: 5, retries: 3 }, function createFn() {
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            times.push(now);
            return Effect.fail(new Error("oops"));
          });
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(30);
        assert.strictEqual(times.length, 3);
        assert.deepStrictEqual(
          times.slice(1).map((t, i) => Math.round((t - (times[i] as number)) / 1000)),
          [5, 5],
        );
        assert.isTrue(
          lines.some((l) =>
            l.includes("Handler 'createFn' failed with an exception and will try again in 5 seconds: oops"),
          ),
          lines.join("\n"),
        );
        assert.include(lines, `[${ns}/e1] Creation is processed: 0 succeeded; 1 failed.`);
      }),
    ),
  );

  it.effect("a timeout stops retrying when the next attempt would be too late", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, { backoff: 4, timeout: 10 }, function createFn() {
          calls += 1;
          throw new Error("slow");
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(30);
        assert.strictEqual(calls, 3);
        assert.isTrue(
          lines.some((l) =>
            l.includes("will stop now (it would time out in 10 seconds on the next attempt): slow"),
          ),
          lines.filter((l) => l.includes("createFn")).join("\n"),
        );
        assert.include(lines, `[${ns}/e1] Creation is processed: 0 succeeded; 1 failed.`);
      }),
    ),
  );

  it.effect("ignored errors count as done", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, { errors: "ignored" }, function createFn() {
          calls += 1;
          throw new Error("whatever");
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(120);
        assert.strictEqual(calls, 1);
        assert.include(lines, `[${ns}/e1] Creation is processed: 1 succeeded; 0 failed.`);
      }),
    ),
  );

  it.effect("asap runs one handler per cycle; each cycle persists the progress", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const order: Array<string> = [];
        registry.on.create(RES, function first() {
          order.push("first");
        });
        registry.on.create(RES, function second() {
          order.push("second");
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        assert.deepStrictEqual(order, ["first", "second"]);
        const cycles = log.patches().filter((p) => !p.path.endsWith("/status"));
        const firstPatch = cycles[0]?.body as { metadata: { annotations: Record<string, string> } };
        const stored = JSON.parse(firstPatch.metadata.annotations["kopf.zalando.org/first"] ?? "{}");
        assert.include(stored, { purpose: "create", retries: 1, success: true, failure: false });
        assert.match(String(stored.stopped), ISO);
        assert.deepStrictEqual(Harness.annotations(yield* Harness.get("e1")), {
          [LAST_HANDLED]: '{"spec":{"field":"value"}}\n',
        });
      }),
    ),
  );

  it.effect.each([
    ["all_at_once", Lifecycles.all_at_once, 1],
    ["one_by_one", Lifecycles.one_by_one, 3],
    ["asap", Lifecycles.asap, 3],
    ["shuffled", Lifecycles.shuffled, 1],
    ["randomized", Lifecycles.randomized, 3],
  ] as const)("the %s lifecycle runs all three handlers in %d cycle(s)", ([, lifecycle, cycles]) =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        for (const id of ["a", "b", "c"]) {
          registry.on.create(RES, { id }, () => {
            calls.push(id);
          });
        }
        yield* Harness.start(registry, { lines, log }, { lifecycle });
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        assert.deepStrictEqual([...calls].sort(), ["a", "b", "c"]);
        const cyclePatches = log.patches().filter((p) => !p.path.endsWith("/status"));
        assert.strictEqual(cyclePatches.length, cycles);
        assert.include(lines, `[${ns}/e1] Creation is processed: 3 succeeded; 0 failed.`);
      }),
    ),
  );

  it.effect("sub-handlers run after their parent, with their own progress keys", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create(RES, function createFn({ subregistry }) {
          calls.push("parent");
          for (const task of ["a", "b"]) {
            subregistry.subhandler({ id: `task_${task}` }, () => {
              calls.push(task);
              return { task };
            });
          }
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(5);
        assert.deepStrictEqual(
          calls.filter((c) => c !== "parent"),
          ["a", "b"],
        );
        const annotated = log
          .patches()
          .flatMap((p) =>
            Object.keys((p.body as { metadata?: { annotations?: object } }).metadata?.annotations ?? {}),
          );
        assert.includeMembers(annotated, [
          "kopf.zalando.org/createFn.task_a",
          "kopf.zalando.org/createFn.task_b",
        ]);
        const body = yield* Harness.get("e1");
        assert.deepStrictEqual(body.status, {
          "createFn/task_a": { task: "a" },
          "createFn/task_b": { task: "b" },
        });
        assert.deepStrictEqual(Harness.annotations(body), { [LAST_HANDLED]: '{"spec":{"field":"value"}}\n' });
      }),
    ),
  );
});

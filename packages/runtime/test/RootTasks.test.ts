// Covers the operator's extra root tasks (docs/behaviour/operator.md#tasks-start-up-and-shutdown): they start after the startup handlers (and
// see the settings those changed), get the memo, the scan signal, the objects' memos and the
// indices, run beside the orchestration, are interrupted before the cleanup handlers, and a
// failing task stops the operator with its message. Also: operator-level handlers get indices.
// The watching seam: a task follows the served namespaces (patterns, as namespaces come and go)
// before the watches do, and its pause, set for a new namespace, holds all handling until
// cleared — an object created with its namespace is handled only after that.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Registry } from "@kopf/registry";
import type { OperatorSettings, Settings } from "@kopf/settings";
import type { RawBody } from "@kopf/structs";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Operator from "../src/Operator.ts";
import type * as RootTasks from "../src/RootTasks.ts";
import * as Harness from "./fixtures/Harness.ts";

describe("RootTasks", () => {
  it.effect("a task starts after startup, sees its settings, and stops before cleanup", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const order: Array<string> = [];
        const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
        registry.on.startup(function startupFn({ settings }) {
          order.push("startup");
          settings.posting.level = "Error";
        });
        registry.on.cleanup(function cleanupFn() {
          order.push("cleanup");
        });
        let seenLevel: string | undefined;
        const task: RootTasks.RootTask = (context) =>
          Effect.gen(function* () {
            order.push("task");
            seenLevel = context.settings.posting.level;
            yield* context.scanned;
            order.push("scanned");
            yield* Effect.never;
          }).pipe(Effect.onInterrupt(() => Effect.sync(() => order.push("task-interrupted"))));
        const running = yield* Harness.start(registry, { lines, log }, { tasks: [task] });
        assert.deepStrictEqual(order, ["startup", "task", "scanned"]);
        assert.strictEqual(seenLevel, "Error");
        yield* running.operator.stop;
        assert.deepStrictEqual(order, ["startup", "task", "scanned", "task-interrupted", "cleanup"]);
      }),
    ),
  );

  it.effect("a task that completes leaves the operator running", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.event("kopfexamples.kopf.dev", function eventFn({ name }) {
          seen.push(String(name));
        });
        yield* Harness.start(registry, { lines, log }, { tasks: [() => Effect.void] });
        yield* Harness.settle(5);
        yield* Harness.create("e1");
        yield* Harness.settle(1);
        assert.deepStrictEqual(seen, ["e1"]);
      }),
    ),
  );

  it.effect("a failing task stops the operator with its message, after cleanup", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        yield* Harness.setup;
        const order: Array<string> = [];
        const registry = Registry.make();
        registry.on.cleanup(function cleanupFn() {
          order.push("cleanup");
        });
        const exit = yield* Effect.exit(
          Operator.run({
            registry,
            namespaces: ["ns1"],
            tasks: [(context) => Effect.andThen(context.scanned, Effect.fail({ message: "no server" }))],
          }),
        );
        assert.isTrue(Exit.isFailure(exit));
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined;
        assert.include(JSON.stringify(error), "TaskFailed");
        assert.include(JSON.stringify(error), "no server");
        assert.deepStrictEqual(order, ["cleanup"]);
      }),
    ),
  );

  it.effect("memoOf finds the memo the handlers of an object share", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create("kopfexamples.kopf.dev", function createFn({ memo }) {
          (memo as Record<string, unknown>).touched = "yes";
        });
        let context: RootTasks.RootTaskContext | undefined;
        yield* Harness.start(
          registry,
          { lines, log },
          {
            memo: { shared: 1 },
            tasks: [
              (given) =>
                Effect.sync(() => {
                  context = given;
                }),
            ],
          },
        );
        const created = yield* Harness.create("e1");
        yield* Harness.settle(1);
        assert.isDefined(context);
        assert.deepStrictEqual(context?.memo, { shared: 1 });
        assert.deepStrictEqual(context?.memoOf(Harness.resource, created), { shared: 1, touched: "yes" });
        assert.isUndefined(context?.memoOf(Harness.resource, { metadata: { uid: "unknown" } }));
        assert.deepStrictEqual(context?.indices(), {});
      }),
    ),
  );

  it.effect("startup and cleanup handlers get the operator's indices", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<unknown> = [];
        registry.on.startup(function startupFn(context) {
          seen.push((context as unknown as Record<string, unknown>).byName);
        });
        registry.on.cleanup(function cleanupFn(context) {
          seen.push((context as unknown as Record<string, unknown>).byName);
        });
        let size = 0;
        const running = yield* Harness.start(
          registry,
          { lines, log },
          { engines: { indices: () => ({ byName: { size: ++size } }) } },
        );
        yield* running.operator.stop;
        assert.deepStrictEqual(seen, [{ size: 1 }, { size: 2 }]);
      }),
    ),
  );

  it.effect("a task follows the served namespaces before the watches, and its pause holds a new one", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const handled: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn({ namespace, name }) {
          handled.push(`${namespace}/${name}`);
        });
        const followed: Array<ReadonlyArray<string>> = [];
        const approval = yield* Deferred.make<void>();
        // Like a mandatory peering: a namespace not seen before pauses everything until approved.
        const task: RootTasks.RootTask = (context) =>
          Effect.scoped(
            Effect.gen(function* () {
              const pause = yield* context.watching.pause(false);
              const known = new Set<string | null>();
              yield* context.watching.follow((namespaces) =>
                Effect.gen(function* () {
                  followed.push([...namespaces].map(String).sort());
                  const fresh = known.size > 0 && [...namespaces].some((ns) => !known.has(ns));
                  for (const ns of namespaces) known.add(ns);
                  if (!fresh) return;
                  yield* pause.set(true);
                  yield* Effect.forkScoped(Effect.andThen(Deferred.await(approval), pause.set(false)));
                }),
              );
            }),
          );
        yield* Harness.start(registry, { lines, log }, { namespaces: ["ns*"], tasks: [task] });
        yield* Harness.create("e1");
        yield* Harness.settle(1);
        assert.deepStrictEqual(handled, ["ns1/e1"]);

        const api = yield* KubeApi;
        yield* Harness.namespace("ns2");
        yield* api
          .create(Harness.resource, Harness.example("e2", {}, "ns2") as RawBody, { namespace: "ns2" })
          .pipe(Effect.orDie);
        yield* Harness.settle(1);
        assert.deepStrictEqual(followed, [["ns1"], ["ns1", "ns2"]]);
        // The pause holds everything (as Kopf's operator-wide pause), the old namespace too.
        yield* Harness.create("e3");
        yield* Harness.settle(5);
        assert.deepStrictEqual(handled, ["ns1/e1"]);

        yield* Deferred.succeed(approval, undefined);
        yield* Harness.settle(2);
        assert.deepStrictEqual([...handled].sort(), ["ns1/e1", "ns1/e3", "ns2/e2"]);
      }),
    ),
  );
});

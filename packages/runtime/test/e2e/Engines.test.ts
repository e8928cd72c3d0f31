// End to end (docs/behaviour/processing.md#cause-order steps 3, 5 and 8, docs/behaviour/daemons-timers.md#stopping-on-deletion): the spawning seam. A spawning engine is given
// the daemons and timers of every event; while it keeps them running, they hold the finalizer
// (added in a cycle of its own); once it reports them stopped forever and asks for no more
// time, a deleted object is released. Without an engine, daemons are ignored (with a warning)
// and hold no finalizer. The indexing seam runs first for every event.
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import * as Effect from "effect/Effect";
import type * as Engines from "../../src/Engines.ts";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

describe("engine seams", () => {
  it.effect("a spawning engine's daemons hold the finalizer until it reports them stopped", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(RES, function monitorFn() {});
        const calls: Array<string> = [];
        const engines: Engines.Engines = {
          indexing: ({ event }) => Effect.sync(() => void calls.push(`index ${event.type}`)),
          spawning: ({ cause, handlers }) =>
            Effect.sync(() => {
              const deleting = cause.body.metadata?.deletionTimestamp !== undefined;
              calls.push(`spawn ${handlers.map((h) => h.id).join(",")}${deleting ? " (deleting)" : ""}`);
              return {
                delays: [],
                excluded: deleting ? new Set(handlers.map((h) => h.id)) : new Set<string>(),
              };
            }),
        };
        yield* Harness.start(registry, { lines, log }, { engines });
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, [FINALIZER]);
        assert.deepStrictEqual(calls.slice(0, 2), ["index ADDED", "spawn monitorFn"]);
        yield* Harness.remove("e1");
        yield* Harness.settle(2);
        assert.isFalse(yield* Harness.exists("e1"));
        assert.include(calls, "spawn monitorFn (deleting)");
        assert.isFalse(lines.some((l) => l.includes("no spawning engine")));
        // Releasing was the last write, though the DELETED event may still show the finalizer.
        assert.deepStrictEqual(Harness.lastPatch(log), [
          "json-patch+json",
          { op: "remove", path: "/metadata/finalizers" },
        ]);
      }),
    ),
  );

  it.effect("without a spawning engine, daemons are ignored and hold no finalizer", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(RES, function monitorFn() {});
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, undefined);
        assert.include(
          lines,
          "Daemons and timers are registered, but no spawning engine runs them: they are ignored.",
        );
        yield* Harness.remove("e1");
        yield* Harness.settle(1);
        assert.isFalse(yield* Harness.exists("e1"));
      }),
    ),
  );
});

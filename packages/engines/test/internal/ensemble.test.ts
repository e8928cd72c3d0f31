/**
 * The ensemble of presences (Kopf's peering tasks and pause toggles): paused while any running
 * presence wants it, `onPause` told of changes only; mandatory presences begin paused; a target
 * that goes away takes its presence (interrupted) and its verdict with it, and its late reports
 * are ignored; unchanged targets are not restarted. A property checks the verdict against
 * random report sequences.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import fc from "fast-check";
import * as Ensemble from "../../src/internal/ensemble.ts";
import type * as Presence from "../../src/Presence.ts";

const PEERINGS = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  namespaced: true,
});
const target = (namespace: string): Presence.Target => ({ resource: PEERINGS, namespace });

/** Presences that do nothing but wait, with their report functions exposed by namespace. */
const scene = (initial: boolean) =>
  Effect.gen(function* () {
    const calls: Array<boolean> = [];
    const reports = new Map<string, (paused: boolean) => Effect.Effect<void>>();
    const started: Array<string> = [];
    const stopped: Array<string> = [];
    const ensemble = yield* Ensemble.make(
      (t, report) =>
        Effect.suspend(() => {
          const ns = String(t.namespace);
          started.push(ns);
          reports.set(ns, report);
          return Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => stopped.push(ns))));
        }),
      (paused) => Effect.sync(() => void calls.push(paused)),
      initial,
    );
    const adjust = (...namespaces: ReadonlyArray<string>) =>
      Effect.andThen(ensemble.adjust(namespaces.map(target)), Effect.yieldNow);
    const report = (ns: string, paused: boolean) => reports.get(ns)?.(paused) ?? Effect.void;
    return { calls, started, stopped, adjust, report };
  });

// The presences here never call the API; the ensemble only passes the KubeApi on to them.
const run = <A, E>(effect: Effect.Effect<A, E, KubeApi | Scope.Scope>) =>
  effect.pipe(Effect.scoped, Effect.provideService(KubeApi, KubeApi.of({} as KubeApi["Service"])));

describe("ensemble", () => {
  it.effect("paused while any presence wants it; onPause hears changes only", () =>
    run(
      Effect.gen(function* () {
        const s = yield* scene(false);
        yield* s.adjust("a", "b");
        assert.deepStrictEqual(s.calls, [false]);
        yield* s.report("a", true);
        yield* s.report("b", true);
        yield* s.report("a", false);
        assert.deepStrictEqual(s.calls, [false, true]);
        yield* s.report("b", false);
        assert.deepStrictEqual(s.calls, [false, true, false]);
      }),
    ),
  );

  it.effect("mandatory presences begin paused, before they have judged anything", () =>
    run(
      Effect.gen(function* () {
        const s = yield* scene(true);
        yield* s.adjust("a");
        assert.deepStrictEqual(s.calls, [true]);
        yield* s.report("a", false);
        assert.deepStrictEqual(s.calls, [true, false]);
      }),
    ),
  );

  it.effect("a target that goes away takes its presence and verdict with it", () =>
    run(
      Effect.gen(function* () {
        const s = yield* scene(false);
        yield* s.adjust("a", "b");
        yield* s.report("a", true);
        const late = s.report("a", true);
        yield* s.adjust("b");
        assert.deepStrictEqual(s.stopped, ["a"]);
        assert.deepStrictEqual(s.calls, [false, true, false]);
        yield* late; // the stopped presence's last words
        assert.deepStrictEqual(s.calls, [false, true, false]);
      }),
    ),
  );

  it.effect("unchanged targets are not restarted; new ones start; none means not paused", () =>
    run(
      Effect.gen(function* () {
        const s = yield* scene(false);
        yield* s.adjust();
        assert.deepStrictEqual(s.calls, [false]);
        yield* s.adjust("a");
        yield* s.adjust("a", "b");
        yield* s.adjust("b", "a");
        assert.deepStrictEqual(s.started, ["a", "b"]);
        assert.deepStrictEqual(s.stopped, []);
      }),
    ),
  );

  it("the operator is paused exactly when some running presence's last verdict is a pause", async () => {
    const op = fc.oneof(
      fc.record({ report: fc.constantFrom("a", "b", "c"), paused: fc.boolean() }),
      fc.record({ adjust: fc.subarray(["a", "b", "c"]) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(op, { maxLength: 30 }), (initial, ops) =>
        Effect.runPromise(
          run(
            Effect.gen(function* () {
              const s = yield* scene(initial);
              const verdicts = new Map<string, boolean>();
              for (const step of ops) {
                if ("adjust" in step) {
                  for (const ns of [...verdicts.keys()]) if (!step.adjust.includes(ns)) verdicts.delete(ns);
                  for (const ns of step.adjust) if (!verdicts.has(ns)) verdicts.set(ns, initial);
                  yield* s.adjust(...step.adjust);
                } else {
                  // Stopped presences' reports are ignored.
                  if (verdicts.has(step.report)) verdicts.set(step.report, step.paused);
                  yield* s.report(step.report, step.paused);
                }
              }
              const expected = [...verdicts.values()].some(Boolean);
              if (s.calls.length > 0) assert.strictEqual(s.calls.at(-1), expected);
              else assert.isFalse(expected);
              // onPause alternates: never told the same thing twice in a row.
              assert.isTrue(s.calls.every((paused, i) => i === 0 || paused !== s.calls[i - 1]));
            }),
          ),
        ),
      ),
    );
  });
});

// The chaos suite of the runtime (`npm run chaos`): operators on the emulator, in virtual time,
// killed before each of their writes in turn, killed several times in one run, and stormed with
// 5xx answers on their status and object writes, with several objects in flight. The figures
// are printed; every figure that must be zero is asserted: result-vs-mark inconsistencies, lost
// results, unexplained re-runs, stuck finalizers, unhandled deletions.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Crashing from "../fixtures/Crashing.ts";
import * as Harness from "../fixtures/Harness.ts";

const OBJECTS = 3;

interface Totals {
  runs: number;
  objects: number;
  kills: number;
  faults: Map<string, number>;
  inconsistencies: Array<string>;
  lost: Array<string>;
  reRunsExplained: number;
  reRunsUnexplained: Array<string>;
  stuckFinalizers: Array<string>;
  deletionsUnhandled: Array<string>;
}

const totals = (): Totals => ({
  runs: 0,
  objects: 0,
  kills: 0,
  faults: new Map(),
  inconsistencies: [],
  lost: [],
  reRunsExplained: 0,
  reRunsUnexplained: [],
  stuckFinalizers: [],
  deletionsUnhandled: [],
});

const add = (into: Totals, figures: Crashing.Figures): void => {
  into.runs += 1;
  into.objects += figures.objects;
  into.kills += figures.kills;
  for (const [kind, count] of figures.faults) into.faults.set(kind, (into.faults.get(kind) ?? 0) + count);
  into.inconsistencies.push(...figures.inconsistencies);
  into.lost.push(...figures.lost);
  into.reRunsExplained += figures.reRunsExplained;
  into.reRunsUnexplained.push(...figures.reRunsUnexplained);
  into.stuckFinalizers.push(...figures.stuckFinalizers);
  into.deletionsUnhandled.push(...figures.deletionsUnhandled);
};

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** Prints the figures and asserts those that must be zero. */
const report = (title: string, all: Totals, rss: { before: number; after: number }): void => {
  const faults = [...all.faults].map(([kind, count]) => `${kind}: ${count}`).join(", ") || "none";
  console.log(
    [
      `chaos: ${title}`,
      `  runs ${all.runs}, objects ${all.objects}, kills ${all.kills}, faults injected (${faults})`,
      `  lost ${all.lost.length}, re-runs explained ${all.reRunsExplained}, unexplained ${all.reRunsUnexplained.length}`,
      `  result-vs-mark inconsistencies ${all.inconsistencies.length}, stuck finalizers ${all.stuckFinalizers.length}, unhandled deletions ${all.deletionsUnhandled.length}`,
      `  RSS before ${mib(rss.before)}, after ${mib(rss.after)}`,
    ].join("\n"),
  );
  assert.deepStrictEqual(all.inconsistencies, []);
  assert.deepStrictEqual(all.lost, []);
  assert.deepStrictEqual(all.reRunsUnexplained, []);
  assert.deepStrictEqual(all.stuckFinalizers, []);
  assert.deepStrictEqual(all.deletionsUnhandled, []);
};

const measured = <A, E, R>(title: string, body: (all: Totals) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const all = totals();
    const before = process.memoryUsage().rss;
    yield* body(all);
    report(title, all, { before, after: process.memoryUsage().rss });
    return all;
  });

describe("chaos: crashes and API faults", () => {
  it.effect(`${OBJECTS} objects, the operator killed before each of its writes in turn`, () =>
    measured("a kill before every write", (all) =>
      Effect.gen(function* () {
        const writes = yield* Harness.run(() =>
          Effect.map(Crashing.scenario({ objects: OBJECTS }), (figures) => figures.firstLifeWrites),
        );
        for (let killAt = 1; killAt <= writes; killAt++)
          add(all, yield* Harness.run(() => Crashing.scenario({ objects: OBJECTS, killAt })));
        assert.strictEqual(all.kills, writes);
      }),
    ),
  );

  it.effect(`${OBJECTS} objects, killed again and again in one run`, () =>
    measured("repeated kills", (all) =>
      Effect.gen(function* () {
        for (const killAt of [
          [2, 2, 2, 2, 2],
          [3, 5, 7],
          [1, 4, 1, 4, 1, 4],
          [6, 6, 6],
        ])
          add(all, yield* Harness.run(() => Crashing.scenario({ objects: OBJECTS, killAt })));
        assert.isAtLeast(all.kills, 10);
      }),
    ),
  );

  it.effect(`${OBJECTS} objects, 5xx storms on the status and on the object writes`, () =>
    measured("5xx storms", (all) =>
      Effect.gen(function* () {
        const storms: ReadonlyArray<ReadonlyArray<Crashing.Storm>> = [
          [{ status: 503, timesPerObject: 5 }],
          [{ status: 500, timesPerObject: 3, part: "object" }],
          [
            { status: 503, timesPerObject: 2 },
            { status: 502, timesPerObject: 2, part: "object" },
          ],
        ];
        for (const storm of storms)
          add(all, yield* Harness.run(() => Crashing.scenario({ objects: OBJECTS, storm })));
        add(
          all,
          yield* Harness.run(() =>
            Crashing.scenario({
              objects: OBJECTS,
              storm: { status: 503, timesPerObject: 3 },
              killAt: [4, 3],
            }),
          ),
        );
        assert.isAtLeast(
          [...all.faults.values()].reduce((a, b) => a + b, 0),
          30,
        );
      }),
    ),
  );
});

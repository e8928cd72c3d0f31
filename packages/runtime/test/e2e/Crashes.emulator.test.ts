// End to end on the emulator (fixtures/Crashing.ts): an operator killed before each of its
// writes in turn and restarted at once, and one whose status writes fail with a 5xx storm,
// never store a mark saying "done" without the result it stands for; every object ends handled
// with its results, no re-run is unexplained, no finalizer is left behind. The undisturbed run
// pins the writes per object, which storing results before marks did not change.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Crashing from "../fixtures/Crashing.ts";
import * as Harness from "../fixtures/Harness.ts";

const assertSound = (figures: Crashing.Figures) => {
  assert.deepStrictEqual(figures.inconsistencies, []);
  assert.deepStrictEqual(figures.lost, []);
  assert.deepStrictEqual(figures.reRunsUnexplained, []);
  assert.deepStrictEqual(figures.stuckFinalizers, []);
  assert.deepStrictEqual(figures.deletionsUnhandled, []);
};

describe("crashes", () => {
  it.effect("an undisturbed run: ten writes per object, no re-run", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const figures = yield* Crashing.scenario({ objects: 2 });
        assertSound(figures);
        // The finalizer (1); the first create cycle, one handler done and one to retry (status
        // and progress: 2); the second (2); the update (2); the deletion (progress, then the
        // purge with the finalizer's release, then the deleted object's echo: 3).
        assert.deepStrictEqual(figures.writesPerObject, [10, 10]);
        assert.strictEqual(figures.reRunsExplained, 0);
      }),
    ),
  );

  it.effect("killed before each of its writes in turn, then restarted: no mark without its result", () =>
    Effect.gen(function* () {
      const writes = yield* Harness.run(() =>
        Effect.map(Crashing.scenario({ objects: 1 }), (figures) => figures.firstLifeWrites),
      );
      assert.isAtLeast(writes, 10);
      let kills = 0;
      let explained = 0;
      for (let killAt = 1; killAt <= writes; killAt++) {
        const figures = yield* Harness.run(() => Crashing.scenario({ objects: 1, killAt }));
        assertSound(figures);
        kills += figures.kills;
        explained += figures.reRunsExplained;
      }
      assert.strictEqual(kills, writes);
      // Some kills fall between a result and its mark: the handler runs again, for a reason.
      assert.isAbove(explained, 0);
    }),
  );

  it.effect("a 5xx storm on the status writes: the handlers stay pending and run again", () =>
    Harness.run(({ lines }) =>
      Effect.gen(function* () {
        const figures = yield* Crashing.scenario({ objects: 2, storm: { status: 503, timesPerObject: 3 } });
        assertSound(figures);
        assert.strictEqual(figures.faults.get("status 503"), 6);
        assert.strictEqual(figures.reRunsExplained, 6);
        const throttled = lines.filter((line) => line.includes("due to an unexpected error: PatchNotStored"));
        assert.strictEqual(throttled.length, 6);
        assert.include(throttled[0], "the handlers stay pending and will run again");
      }),
    ),
  );
});

// Covers the adaptive cycle limit's decision (docs/behaviour/watching.md#queues) by tables: the
// bounds of a configured limit, a step down on a saturated event loop, a step up on one with slack
// while cycles wait, staying between the thresholds, and readings that are not a load.
import { assert, describe, it } from "@effect/vitest";
import * as CycleLimit from "../src/CycleLimit.ts";

describe("CycleLimit", () => {
  it("bounds: the configured limit at most, half of it at least, an eighth as a step", () => {
    const table: ReadonlyArray<readonly [number, CycleLimit.Bounds]> = [
      [32, { most: 32, least: 16, step: 4 }],
      [33, { most: 33, least: 17, step: 5 }],
      [8, { most: 8, least: 4, step: 1 }],
      [3, { most: 3, least: 2, step: 1 }],
      [1, { most: 1, least: 1, step: 1 }],
      [0, { most: 1, least: 1, step: 1 }],
      [7.9, { most: 7, least: 4, step: 1 }],
    ];
    for (const [most, expected] of table)
      assert.deepStrictEqual(CycleLimit.bounds(most), expected, `${most}`);
  });

  it("next: a step down when saturated, a step up with slack while cycles wait, else stays", () => {
    const b = CycleLimit.bounds(32);
    const table: ReadonlyArray<readonly [number, number, boolean, number]> = [
      // limit, utilization, waiting → next
      [32, 1, true, 28],
      [32, 0.95, true, 28],
      [32, 0.97, false, 28], // saturated: lowered whether or not anything waits
      [18, 0.99, true, 16], // not below the least
      [16, 1, true, 16],
      [32, 0.949, true, 32], // between the thresholds: stays
      [20, 0.85, true, 20],
      [20, 0.9, false, 20],
      [16, 0.849, true, 20], // slack and waiting: a step up
      [16, 0, true, 20],
      [30, 0.2, true, 32], // not above the most
      [32, 0.2, true, 32],
      [16, 0.2, false, 16], // slack but nothing waits: no reason to raise
      // Outside of the bounds (a changed setting): brought in first.
      [64, 0.9, true, 32],
      [4, 0.9, true, 16],
      [64, 1, true, 28],
      [20.7, 0.9, true, 20],
      // Not a load: as it was (within the bounds).
      [20, Number.NaN, true, 20],
      [20, -0.1, true, 20],
      [20, 1.5, true, 20],
      [20, Number.POSITIVE_INFINITY, true, 20],
      [Number.NaN, 0.9, true, 32],
    ];
    for (const [limit, utilization, waiting, expected] of table)
      assert.strictEqual(
        CycleLimit.next(limit, { utilization, waiting }, b),
        expected,
        `${limit} at ${utilization}${waiting ? ", waiting" : ""}`,
      );
  });

  it("next: with the smallest limits it never leaves 1..most", () => {
    for (const most of [1, 2, 3]) {
      const b = CycleLimit.bounds(most);
      for (const utilization of [0, 0.5, 0.8, 0.95, 1])
        for (const waiting of [true, false])
          for (let limit = 0; limit <= most + 1; limit++) {
            const next = CycleLimit.next(limit, { utilization, waiting }, b);
            assert.isTrue(next >= b.least && next <= b.most, `${most}: ${limit} at ${utilization} → ${next}`);
          }
    }
  });
});

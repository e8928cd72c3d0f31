/**
 * The scaled-out role metrics: the leader gauge follows leading and standing by, and a sharded
 * replica's share is the size of its ranges over the whole 2^64 hash space.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import { EngineMetrics } from "../src/index.ts";

const HALF = 1n << 63n;
const SPACE = 1n << 64n;

describe("EngineMetrics", () => {
  it.effect("records whether the replica leads", () =>
    Effect.gen(function* () {
      yield* EngineMetrics.leading(true);
      assert.strictEqual((yield* Metric.value(EngineMetrics.leader)).value, 1);
      yield* EngineMetrics.leading(false);
      assert.strictEqual((yield* Metric.value(EngineMetrics.leader)).value, 0);
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
  );

  it.effect.each([
    ["nothing", [], 0],
    ["everything", [{ start: 0n, end: SPACE }], 1],
    ["one half", [{ start: 0n, end: HALF }], 0.5],
    [
      "two quarters",
      [
        { start: 0n, end: HALF / 2n },
        { start: HALF, end: HALF + HALF / 2n },
      ],
      0.5,
    ],
  ] as const)("the share of %s", ([, ranges, share]) =>
    Effect.gen(function* () {
      yield* EngineMetrics.shards(ranges);
      assert.strictEqual((yield* Metric.value(EngineMetrics.shardShare)).value, share);
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
  );
});

/**
 * Remembered metric series: equal attributes give the same tagged metric, whose updates land in
 * the series Effect's own `Metric.withAttributes` reads; different attributes (values, names or
 * metrics) give separate series.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as MetricSeries from "../src/MetricSeries.ts";

const hits = Metric.counter("test_metric_series_hits_total", { incremental: true });
const other = Metric.counter("test_metric_series_other_total", { incremental: true });

const count = (
  metric: Metric.Metric<number, { readonly count: number }>,
  attributes: Record<string, string>,
) => Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => state.count);

describe("MetricSeries.tagged", () => {
  it("gives one instance per metric and attribute set", () => {
    const a = MetricSeries.tagged(hits, { resource: "pods.v1", verb: "get" });
    assert.strictEqual(MetricSeries.tagged(hits, { resource: "pods.v1", verb: "get" }), a);
    assert.notStrictEqual(MetricSeries.tagged(hits, { resource: "pods.v1", verb: "list" }), a);
    assert.notStrictEqual(MetricSeries.tagged(hits, { resource: "pods.v1", code: "get" }), a);
    assert.notStrictEqual(MetricSeries.tagged(other, { resource: "pods.v1", verb: "get" }), a);
  });

  it.effect("updates the series of its attributes, and only those", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 3; i++)
        yield* Metric.update(MetricSeries.tagged(hits, { resource: "r1", verb: "patch" }), 1);
      yield* Metric.update(MetricSeries.tagged(hits, { resource: "r2", verb: "patch" }), 1);
      yield* Metric.update(MetricSeries.tagged(other, { resource: "r1", verb: "patch" }), 5);
      assert.strictEqual(yield* count(hits, { resource: "r1", verb: "patch" }), 3);
      assert.strictEqual(yield* count(hits, { verb: "patch", resource: "r2" }), 1);
      assert.strictEqual(yield* count(other, { resource: "r1", verb: "patch" }), 5);
      assert.strictEqual(yield* count(hits, { resource: "r3", verb: "patch" }), 0);
    }),
  );

  it("does not keep the caller's object: changing it later changes nothing", () => {
    const attributes = { resource: "r9" };
    const tagged = MetricSeries.tagged(hits, attributes);
    attributes.resource = "changed";
    assert.strictEqual(MetricSeries.tagged(hits, { resource: "r9" }), tagged);
    assert.notStrictEqual(MetricSeries.tagged(hits, attributes), tagged);
  });
});

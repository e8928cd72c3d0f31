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

describe("MetricSeries.counter, gauge and histogram", () => {
  const calls = MetricSeries.counter("test_metric_series_family_total", { incremental: true });
  const level = MetricSeries.gauge("test_metric_series_family_level");
  const seconds = MetricSeries.histogram("test_metric_series_family_seconds", { boundaries: [1, 10] });

  it.effect("tag series of their own that land where withAttributes reads, updated in turns", () =>
    Effect.gen(function* () {
      // Alternating series of one metric: each keeps its own key.
      for (let i = 0; i < 3; i++) {
        yield* Metric.update(MetricSeries.tagged(calls, { resource: "a", code: "200" }), 1);
        yield* Metric.update(MetricSeries.tagged(calls, { resource: "b", code: "200" }), 2);
      }
      // An incremental counter ignores decrements, as Metric.counter's own series do.
      yield* Metric.update(MetricSeries.tagged(calls, { resource: "a", code: "200" }), -5);
      assert.strictEqual(yield* count(calls, { resource: "a", code: "200" }), 3);
      assert.strictEqual(yield* count(calls, { code: "200", resource: "b" }), 6);

      yield* Metric.update(MetricSeries.tagged(level, { resource: "a" }), 7);
      yield* Metric.update(MetricSeries.tagged(level, { resource: "b" }), 9);
      const gauge = yield* Metric.value(Metric.withAttributes(level, { resource: "a" }));
      assert.strictEqual(gauge.value, 7);

      yield* Metric.update(MetricSeries.tagged(seconds, { resource: "a" }), 0.5);
      yield* Metric.update(MetricSeries.tagged(seconds, { resource: "a" }), 5);
      const histogram = yield* Metric.value(Metric.withAttributes(seconds, { resource: "a" }));
      assert.strictEqual(histogram.count, 2);
      assert.strictEqual(histogram.sum, 5.5);
    }),
  );
});

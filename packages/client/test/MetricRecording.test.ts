// Covers the switch of metric recording: by default every update lands in the context's registry;
// with recording off, none does (the registry stays empty), and a request measured by
// `ApiMetrics.measured` still fails on an error status and succeeds otherwise, unrecorded.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as ApiMetrics from "../src/ApiMetrics.ts";
import { KubeApiError } from "../src/KubeApiError.ts";
import * as MetricRecording from "../src/MetricRecording.ts";

const counter = Metric.counter("test_recording_total");
const gauge = Metric.gauge("test_recording_gauge");

/** Every kind of update once, in a fresh registry; the ids of the series recorded there. */
const updateAll = (recording: boolean) => {
  const registry = new Map<string, { readonly id: string }>();
  return Effect.gen(function* () {
    yield* MetricRecording.update(counter, 1);
    yield* MetricRecording.modify(gauge, 2);
    yield* Effect.withFiber((fiber) => {
      MetricRecording.updateUnsafe(counter, 1, fiber.context);
      return Effect.void;
    });
    return [...registry.values()].map((entry) => entry.id).sort();
  }).pipe(
    Effect.provideService(Metric.MetricRegistry, registry),
    Effect.provideService(MetricRecording.Recording, recording),
  );
};

describe("MetricRecording", () => {
  it.effect("records every update by default", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* updateAll(true), ["test_recording_gauge", "test_recording_total"]);
      const registry = new Map();
      const value = yield* Effect.gen(function* () {
        yield* MetricRecording.update(counter, 1);
        return yield* Metric.value(counter);
      }).pipe(Effect.provideService(Metric.MetricRegistry, registry));
      assert.strictEqual(value.count, 1);
    }),
  );

  it.effect("records nothing when off", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* updateAll(false), []);
    }),
  );

  it.effect("a measured request still fails on an error status and succeeds otherwise, unrecorded", () =>
    Effect.gen(function* () {
      const registry = new Map();
      const labels = { verb: "get", resource: "pods.v1" };
      const check = (response: { readonly status: number }) =>
        response.status >= 400 ? KubeApiError.transport(`status ${response.status}`) : undefined;
      const ok = yield* ApiMetrics.measured(labels, Effect.succeed({ status: 200 }), check).pipe(
        Effect.provideService(Metric.MetricRegistry, registry),
        Effect.provideService(MetricRecording.Recording, false),
      );
      assert.strictEqual(ok.status, 200);
      const failed = yield* ApiMetrics.measured(labels, Effect.succeed({ status: 404 }), check).pipe(
        Effect.flip,
        Effect.provideService(Metric.MetricRegistry, registry),
        Effect.provideService(MetricRecording.Recording, false),
      );
      assert.strictEqual(failed.message, "status 404");
      assert.strictEqual(registry.size, 0);
    }),
  );
});

/**
 * The admission metrics: every review served through the webhook function is counted by
 * webhook, kind and outcome (allowed, denied, error) and timed; the handlers' invocations are
 * counted by the runtime's handler metrics with the reason `webhook`.
 */
import { assert, describe, it } from "@effect/vitest";
import { AdmissionError, Registry } from "@kopf/registry";
import { Metrics } from "@kopf/runtime";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as Result from "effect/Result";
import { AdmissionMetrics, Review, Serving } from "../src/index.ts";
import { RESOURCE, review, SPEC } from "./fixtures/reviews.ts";

const decoded = (request: Record<string, unknown> = {}) => {
  const result = Review.decode(review(request));
  if (Result.isFailure(result)) throw new Error(result.failure.message);
  return result.success;
};

describe("AdmissionMetrics", () => {
  it.effect("counts reviews by webhook, kind and outcome, with one latency each", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "check" }, ({ spec }: { spec: { ok?: boolean } }) => {
        if (spec.ok !== true) throw new AdmissionError("No!", { code: 403 });
      });
      const fn = yield* Serving.make({ registry, resources: () => [RESOURCE], memo: {} });
      const body = (ok: boolean) => ({
        object: { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "x" }, spec: { ok } },
      });
      yield* fn({ review: decoded(body(true)), webhook: "check", reason: "validating" });
      yield* fn({ review: decoded(body(true)), webhook: "check", reason: "validating" });
      yield* fn({ review: decoded(body(false)), webhook: "check", reason: "validating" });
      const broken = yield* Serving.make({ registry, resources: () => [], memo: {} });
      yield* Effect.flip(broken({ review: decoded(), webhook: "check", reason: "validating" }));

      const count = (outcome: string) =>
        Effect.map(
          Metric.value(
            Metric.withAttributes(AdmissionMetrics.reviews, {
              webhook: "check",
              kind: "validating",
              outcome,
            }),
          ),
          (state) => state.count,
        );
      assert.deepStrictEqual(
        [yield* count("allowed"), yield* count("denied"), yield* count("error")],
        [2, 1, 1],
      );
      const latency = yield* Metric.value(
        Metric.withAttributes(AdmissionMetrics.latency, { webhook: "check", kind: "validating" }),
      );
      assert.strictEqual(latency.count, 4);
      const invocations = yield* Metric.value(
        Metric.withAttributes(Metrics.handlerInvocations, {
          resource: "kopfexamples.v1.kopf.dev",
          handler: "check",
          reason: "webhook",
        }),
      );
      assert.strictEqual(invocations.count, 3);
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
  );
});

/**
 * The admission webhooks' Effect metrics: reviews served by webhook (the handler id of the URL,
 * `""` for all) and kind (`validating`, `mutating`, `""` for both), by outcome (`allowed`,
 * `denied`, `error` when the review could not be served), and their latency; each review is
 * traced in a span of its own. The handlers'
 * own invocations are counted by the runtime's handler metrics (reason `webhook`).
 */
import { MetricRecording } from "@kopf/client";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Metric from "effect/Metric";
import type { ResponseDocument } from "./Response.ts";

/** Reviews served, by `webhook`, `kind` and `outcome`. */
export const reviews = Metric.counter("kopf_admission_reviews_total", {
  description: "Admission reviews served, by webhook (handler id), kind and outcome (allowed, denied, error)",
  incremental: true,
});
/** Seconds from a review's arrival at serving to its response. */
export const latency = Metric.histogram("kopf_admission_review_duration_seconds", {
  description: "Seconds to serve an admission review, by webhook (handler id) and kind",
  boundaries: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

/**
 * Measures the serving of one review, in its span (`admission review`, with the webhook, the
 * kind and the outcome as `kopf.admission.*` attributes).
 *
 * @example
 * ```ts
 * const document = yield* AdmissionMetrics.measured({ webhook: "check", kind: "validating" }, Serving.serve(options, call))
 * ```
 */
export const measured = <E, R>(
  labels: { readonly webhook: string; readonly kind: string },
  serving: Effect.Effect<ResponseDocument, E, R>,
): Effect.Effect<ResponseDocument, E, R> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis;
    const exit = yield* Effect.exit(serving);
    if (Exit.isFailure(exit) && Exit.hasInterrupts(exit)) return yield* exit;
    const outcome = Exit.isSuccess(exit) ? (exit.value.response.allowed ? "allowed" : "denied") : "error";
    const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000;
    yield* MetricRecording.update(Metric.withAttributes(reviews, { ...labels, outcome }), 1);
    yield* MetricRecording.update(Metric.withAttributes(latency, { ...labels }), seconds);
    yield* Effect.annotateCurrentSpan("kopf.admission.outcome", outcome);
    return yield* exit;
  }).pipe(
    Effect.withSpan("admission review", {
      attributes: { "kopf.admission.webhook": labels.webhook, "kopf.admission.kind": labels.kind },
    }),
  );

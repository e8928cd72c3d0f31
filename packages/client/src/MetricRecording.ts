/**
 * Whether the operator records its metrics. A process that serves no metrics (no metrics
 * endpoint, nothing else reading Effect's metric registry) records none: nothing could read them,
 * and their work sits on every object's path (tagging series, reading the clock, updating the
 * registry's counters and histograms). Recording is on by default, as it is for any Effect
 * metric; `@kopf/engines`' `Operating.run` turns it off when it serves no metrics endpoint and is
 * not told to record. Every update of the operator's metrics goes through {@link updateUnsafe},
 * {@link update} or {@link modify}, or asks {@link isOn} first where computing the value costs
 * something itself.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Metric from "effect/Metric";

/**
 * Whether the context's metrics are recorded (default `true`).
 *
 * @example
 * ```ts
 * program.pipe(Effect.provideService(MetricRecording.Recording, false)) // records no metrics
 * ```
 */
export const Recording: Context.Reference<boolean> = Context.Reference<boolean>(
  "@kopf/client/MetricRecording/Recording",
  { defaultValue: () => true },
);

/**
 * Whether metrics are recorded in `context`.
 *
 * @example
 * ```ts
 * if (MetricRecording.isOn(fiber.context)) series.updateUnsafe(seconds, fiber.context)
 * ```
 */
export const isOn = (context: Context.Context<never>): boolean => Context.get(context, Recording);

/**
 * `metric.updateUnsafe(input, context)` when `context` records metrics; nothing otherwise.
 *
 * @example
 * ```ts
 * MetricRecording.updateUnsafe(MetricSeries.tagged(cycles, { resource }), 1, context)
 * ```
 */
export const updateUnsafe = <I>(
  metric: Metric.Metric<I, unknown>,
  input: I,
  context: Context.Context<never>,
): void => {
  if (isOn(context)) metric.updateUnsafe(input, context);
};

/**
 * `Metric.update`, unless the fiber's context records no metrics.
 *
 * @example
 * ```ts
 * yield* MetricRecording.update(MetricSeries.tagged(retries, { verb, resource, reason }), 1)
 * ```
 */
export const update = <I>(metric: Metric.Metric<I, unknown>, input: I): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    updateUnsafe(metric, input, fiber.context);
    return Effect.void;
  });

/**
 * `Metric.modify` (a gauge moved by `input`), unless the fiber's context records no metrics.
 *
 * @example
 * ```ts
 * yield* MetricRecording.modify(MetricSeries.tagged(running, { kind: "daemon" }), 1)
 * ```
 */
export const modify = <I>(metric: Metric.Metric<I, unknown>, input: I): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    if (isOn(fiber.context)) metric.modifyUnsafe(input, fiber.context);
    return Effect.void;
  });

/**
 * The operator's Effect metrics: handler invocations and their ends (successes, failures by
 * kind, retries, durations), processing cycles, the latency from an event's arrival to a
 * handler's start and to the applied patch, the objects known and queued per resource, and the
 * throttled objects. Labels stay bounded (resource, handler id, reason, kind; never object
 * names). Recording is pure Effect: the values live in Effect's `Metric.MetricRegistry` of the
 * context (tests provide a fresh `Map`), where the exporter of `@kopf/engines` reads them; a
 * context that records no metrics (`MetricRecording` of `@kopf/client`: an operator serving
 * none) skips all of it, the clock reads and series look-ups included. The
 * metrics are made with the client's `MetricSeries`, so each series of labels is tagged once and
 * keeps its key however the series of one metric alternate.
 */
import { MetricRecording, MetricSeries } from "@kopf/client";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import type * as Metric from "effect/Metric";
import type * as ErrorModes from "./execution/ErrorModes.ts";

/** Duration buckets in seconds, from 5 ms to 10 minutes (handlers may run long). */
export const DURATION_BUCKETS: ReadonlyArray<number> = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/** Handler calls, by `resource`, `handler` and `reason` (the cause: `create`, `event`, `daemon`, ...). */
export const handlerInvocations = MetricSeries.counter("kopf_handler_invocations_total", {
  description: "Handler invocations, by resource, handler id and reason",
  incremental: true,
});
/** Handler calls that returned (or whose errors are ignored by `errors: "ignored"`: see failures). */
export const handlerSuccesses = MetricSeries.counter("kopf_handler_successes_total", {
  description: "Handler invocations that succeeded, by resource and handler id",
  incremental: true,
});
/** Handler failures by `kind`: `temporary`, `permanent`, `timeout`, `retries`, `ignored`. */
export const handlerFailures = MetricSeries.counter("kopf_handler_failures_total", {
  description:
    "Handler failures, by resource, handler id and kind (temporary, permanent, timeout, retries, ignored)",
  incremental: true,
});
/** Invocations that were retries (the handler had failed before). */
export const handlerRetries = MetricSeries.counter("kopf_handler_retries_total", {
  description: "Handler invocations that retried an earlier failure, by resource and handler id",
  incremental: true,
});
/** Seconds each handler call took. */
export const handlerDuration = MetricSeries.histogram("kopf_handler_duration_seconds", {
  description: "Duration of handler invocations in seconds, by resource and handler id",
  boundaries: DURATION_BUCKETS,
});
/** Events processed (one processing cycle each), by `resource`. */
export const cycles = MetricSeries.counter("kopf_processing_cycles_total", {
  description: "Processing cycles (one per watch event of an object), by resource",
  incremental: true,
});
/** Seconds from an event's arrival to a handler's start for it. */
export const eventToHandler = MetricSeries.histogram("kopf_processing_event_to_handler_seconds", {
  description: "Seconds from the arrival of a watch event to the start of a handler for it, by resource",
  boundaries: DURATION_BUCKETS,
});
/** Seconds from an event's arrival to the patch of its cycle being applied. */
export const eventToPatch = MetricSeries.histogram("kopf_processing_event_to_patch_seconds", {
  description:
    "Seconds from the arrival of a watch event to the patch of its cycle being applied, by resource",
  boundaries: DURATION_BUCKETS,
});
/** Objects the operator keeps in memory, by `resource`. */
export const objectsKnown = MetricSeries.gauge("kopf_objects_known", {
  description: "Objects the operator keeps in memory, by resource",
});
/** Objects with queued or in-process events (a running worker), by `resource`. */
export const objectsQueued = MetricSeries.gauge("kopf_queue_objects", {
  description: "Objects with a running worker (queued or in-process events), by resource",
});
/** Events waiting in the per-object queues, by `resource`. */
export const eventsQueued = MetricSeries.gauge("kopf_queue_events", {
  description: "Watch events waiting in the per-object queues, by resource",
});
/**
 * The most objects that may be mid-cycle at once now, by `resource`: `queueing.cycleLimit`, or
 * less while the adaptive cycle limit has lowered it (`CycleLimit.ts`); absent with no limit.
 */
export const cycleLimit = MetricSeries.gauge("kopf_queue_cycle_limit", {
  description: "The most objects mid-cycle at once now (the adaptive cycle limit), by resource",
});
/** Objects left alone for a while after an unexpected processing error, by `resource`. */
export const objectsThrottled = MetricSeries.gauge("kopf_objects_throttled", {
  description: "Objects throttled after unexpected processing errors, by resource",
});
/** Throttlings started, by `resource`. */
export const throttlings = MetricSeries.counter("kopf_throttlings_total", {
  description: "Throttlings of objects after unexpected processing errors, by resource",
  incremental: true,
});

/** The event being processed: its resource and when it arrived (Clock milliseconds). */
export interface CurrentEvent {
  readonly resource: string;
  readonly arrived: number;
}

/** The event the current fiber processes; `undefined` outside of processing. */
export const CurrentEvent: Context.Reference<CurrentEvent | undefined> = Context.Reference<
  CurrentEvent | undefined
>("@kopf/runtime/Metrics/CurrentEvent", { defaultValue: () => undefined });

const byResource = (resource: string) => ({ resource });

/** The series of `metric` for `resource` (tagged once per resource: see `MetricSeries`). */
const ofResource = <I, S>(metric: Metric.Metric<I, S>, resource: string): Metric.Metric<I, S> =>
  MetricSeries.tagged(metric, byResource(resource));

/** Records the seconds since the current event's arrival (by the fiber's `Clock`); nothing outside of processing. */
const recordSinceArrival = <S>(
  metric: Metric.Metric<number, S>,
  fiber: Fiber.Fiber<unknown, unknown>,
): void => {
  const event = fiber.getRef(CurrentEvent);
  if (event === undefined || !MetricRecording.isOn(fiber.context)) return;
  const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe();
  ofResource(metric, event.resource).updateUnsafe((now - event.arrived) / 1000, fiber.context);
};

/** The labels of one handler. */
export interface HandlerLabels {
  readonly resource: string;
  readonly handler: string;
  readonly reason: string;
}

/**
 * Records one handler call: the invocation (a retry when `retry` > 0), its end and duration,
 * and the latency since the event's arrival when processing an event.
 *
 * @example
 * ```ts
 * yield* Metrics.handlerCalled({ resource: "kopfexamples.v1.kopf.dev", handler: "create_fn", reason: "create" }, 0)
 * yield* Metrics.handlerEnded(labels, { _tag: "Succeeded" }, 0.012)
 * ```
 */
export const handlerCalled = (labels: HandlerLabels, retry: number): Effect.Effect<void> =>
  Effect.withFiberSucceed((fiber) => handlerCalledNow(fiber, labels, retry));

/** Records the end of a handler call (see {@link handlerCalled}); `seconds` is its duration. */
export const handlerEnded = (
  labels: HandlerLabels,
  end: ErrorModes.End,
  seconds: number | undefined,
): Effect.Effect<void> => Effect.withFiberSucceed((fiber) => handlerEndedNow(fiber, labels, end, seconds));

/**
 * The same as {@link handlerCalled}, at once, in the context of `fiber` (for code already
 * running synchronously in it).
 *
 * @example
 * ```ts
 * Effect.withFiberSucceed((fiber) => Metrics.handlerCalledNow(fiber, labels, 0))
 * ```
 */
export const handlerCalledNow = (
  fiber: Fiber.Fiber<unknown, unknown>,
  labels: HandlerLabels,
  retry: number,
): void => {
  if (!MetricRecording.isOn(fiber.context)) return;
  MetricSeries.tagged(handlerInvocations, labels).updateUnsafe(1, fiber.context);
  if (retry > 0)
    MetricSeries.tagged(handlerRetries, { resource: labels.resource, handler: labels.handler }).updateUnsafe(
      1,
      fiber.context,
    );
  recordSinceArrival(eventToHandler, fiber);
};

/**
 * The same as {@link handlerEnded}, at once, in the context of `fiber`.
 *
 * @example
 * ```ts
 * Effect.withFiberSucceed((fiber) => Metrics.handlerEndedNow(fiber, labels, { _tag: "Succeeded" }, 0.012))
 * ```
 */
export const handlerEndedNow = (
  fiber: Fiber.Fiber<unknown, unknown>,
  labels: HandlerLabels,
  end: ErrorModes.End,
  seconds: number | undefined,
): void => {
  if (!MetricRecording.isOn(fiber.context)) return;
  const short = { resource: labels.resource, handler: labels.handler };
  if (end._tag === "Succeeded") MetricSeries.tagged(handlerSuccesses, short).updateUnsafe(1, fiber.context);
  if (end._tag === "Failed")
    MetricSeries.tagged(handlerFailures, { ...short, kind: end.kind }).updateUnsafe(1, fiber.context);
  if (seconds !== undefined) MetricSeries.tagged(handlerDuration, short).updateUnsafe(seconds, fiber.context);
};

/**
 * Records that the patch of the current event's cycle was applied, at once, in the context of
 * `fiber` (for code already running synchronously in it).
 *
 * @example
 * ```ts
 * Effect.withFiber((fiber) => { Metrics.patchAppliedNow(fiber); return Effect.void })
 * ```
 */
export const patchAppliedNow = (fiber: Fiber.Fiber<unknown, unknown>): void =>
  recordSinceArrival(eventToPatch, fiber);

/**
 * Records one processing cycle of an event that arrived at `arrived` and runs `cycle` with the
 * event as {@link CurrentEvent}.
 *
 * @example
 * ```ts
 * yield* Metrics.cycle("kopfexamples.v1.kopf.dev", arrivedAt, process(event))
 * ```
 */
export const cycle = <A, E, R>(
  resource: string,
  arrived: number,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    // The current event serves the metrics alone: not recording them, the cycle runs as it is.
    if (!MetricRecording.isOn(fiber.context)) return effect;
    cycleUnsafe(fiber.context, resource);
    return Effect.provideService(effect, CurrentEvent, { resource, arrived });
  });

/**
 * Records one processing cycle that ran at once, with no effect (and so no handler and no patch),
 * in the metric registry of `context`.
 *
 * @example
 * ```ts
 * Metrics.cycleUnsafe(context, "kopfexamples.v1.kopf.dev")
 * ```
 */
export const cycleUnsafe = (context: Context.Context<never>, resource: string): void => {
  if (MetricRecording.isOn(context)) ofResource(cycles, resource).updateUnsafe(1, context);
};

/**
 * Sets a per-resource gauge (objects known, objects and events queued).
 *
 * @example
 * ```ts
 * yield* Metrics.gauge(Metrics.objectsKnown, "kopfexamples.v1.kopf.dev", memories.size)
 * ```
 */
export const gauge = (metric: Metric.Gauge<number>, resource: string, value: number): Effect.Effect<void> =>
  Effect.withFiberSucceed((fiber) => gaugeUnsafe(fiber.context, metric, resource, value));

/**
 * Sets a per-resource gauge at once, in the metric registry of `context` (for code that holds
 * its fiber's context already).
 *
 * @example
 * ```ts
 * Metrics.gaugeUnsafe(context, Metrics.objectsKnown, "kopfexamples.v1.kopf.dev", memories.size)
 * ```
 */
export const gaugeUnsafe = (
  context: Context.Context<never>,
  metric: Metric.Gauge<number>,
  resource: string,
  value: number,
): void => {
  if (MetricRecording.isOn(context)) ofResource(metric, resource).updateUnsafe(value, context);
};

/**
 * Records that the current event's object starts (`true`) or ends (`false`) being throttled;
 * nothing outside of processing.
 *
 * @example
 * ```ts
 * yield* Metrics.throttling(true)
 * ```
 */
export const throttling = (started: boolean): Effect.Effect<void> =>
  Effect.gen(function* () {
    const event = yield* CurrentEvent;
    if (event === undefined) return;
    const labels = byResource(event.resource);
    yield* MetricRecording.modify(MetricSeries.tagged(objectsThrottled, labels), started ? 1 : -1);
    if (started) yield* MetricRecording.update(MetricSeries.tagged(throttlings, labels), 1);
  });

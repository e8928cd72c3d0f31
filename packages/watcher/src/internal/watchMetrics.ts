/**
 * The per-watch Effect metrics (events received by type, reconnects, relists, 410s, watchdog
 * firings, problems, last event time and age), each tagged with the watched resource and
 * namespace ("" for cluster-wide watches). An exporter reads them from Effect's metric registry.
 */
import { MetricRecording, MetricSeries } from "@kopf/client";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Metric from "effect/Metric";

/** Events received, by `type` (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`, `LIST` for listed items). */
export const events = MetricSeries.counter("kopf_watch_events_total", {
  description: "Watch events received, by type (LIST for items of a listing)",
  incremental: true,
});
/** Watch requests opened after the first one of a listing (resumptions). */
export const reconnects = MetricSeries.counter("kopf_watch_reconnects_total", {
  description: "Watch requests re-opened from the last resourceVersion",
  incremental: true,
});
/** Full listings, including the first one. */
export const relists = MetricSeries.counter("kopf_watch_relists_total", {
  description: "Full listings of a watched resource (the first one included)",
  incremental: true,
});
/** `410 Gone` answers (as `ERROR` events or statuses). */
export const gone = MetricSeries.counter("kopf_watch_gone_total", {
  description: "Watches answered with 410 Gone (resourceVersion too old)",
  incremental: true,
});
/** Reconnections forced by the inactivity watchdog. */
export const watchdog = MetricSeries.counter("kopf_watch_watchdog_total", {
  description: "Watch streams reconnected by the inactivity watchdog",
  incremental: true,
});
/** Problems reported on the stream, by `reason`. */
export const problems = MetricSeries.counter("kopf_watch_problems_total", {
  description: "Problems of list/watch requests, by reason",
  incremental: true,
});
/** Epoch seconds of the last event or bookmark received. */
export const lastEventTimestamp = MetricSeries.gauge("kopf_watch_last_event_timestamp_seconds", {
  description: "When the last watch event or bookmark was received (epoch seconds)",
});
/** Seconds since the last event or bookmark, refreshed periodically while the watch runs. */
export const lastEventAge = MetricSeries.gauge("kopf_watch_last_event_age_seconds", {
  description: "Seconds since the last watch event or bookmark was received",
});

/** How many event types a watch keeps its counters for (Kubernetes has five, plus `LIST`). */
const KNOWN_TYPES = 16;

/** The metrics of one watch, bound to its attributes. */
export interface WatchMetrics {
  readonly event: (type: string) => Effect.Effect<void>;
  /** {@link event} done at once, in the fiber context given (the watcher counts a chunk's events so). */
  readonly eventUnsafe: (type: string, context: Context.Context<never>) => void;
  readonly reconnect: Effect.Effect<void>;
  readonly relist: Effect.Effect<void>;
  readonly gone: Effect.Effect<void>;
  readonly watchdog: Effect.Effect<void>;
  readonly problem: (reason: string) => Effect.Effect<void>;
  /** An event or a listed item came at `nowMillis`: the last event's time, its age 0 (at once). */
  readonly seenUnsafe: (nowMillis: number, context: Context.Context<never>) => void;
  readonly age: (seconds: number) => Effect.Effect<void>;
}

/** Binds the metrics to one watch's `resource` and `namespace` attributes. */
export const bind = (attributes: { readonly resource: string; readonly namespace: string }): WatchMetrics => {
  const tag = <I, S>(metric: Metric.Metric<I, S>) => MetricSeries.tagged(metric, attributes);
  const one = <S>(metric: Metric.Metric<number, S>) => MetricRecording.update(tag(metric), 1);
  // A watch sees a handful of event types: each one's counter is tagged once and reused (up to a
  // bound: a server sending made-up types does not grow the map, `tagged` bounds its series).
  const byType = new Map<string, typeof events>();
  const counterOf = (type: string) => {
    let counter = byType.get(type);
    if (counter === undefined) {
      counter = MetricSeries.tagged(events, { ...attributes, type });
      if (byType.size < KNOWN_TYPES) byType.set(type, counter);
    }
    return counter;
  };
  const eventUnsafe = (type: string, context: Context.Context<never>): void => {
    if (MetricRecording.isOn(context)) counterOf(type).updateUnsafe(1, context);
  };
  const lastEventAt = tag(lastEventTimestamp);
  const eventAge = tag(lastEventAge);
  const seenUnsafe = (nowMillis: number, context: Context.Context<never>): void => {
    if (!MetricRecording.isOn(context)) return;
    lastEventAt.updateUnsafe(nowMillis / 1000, context);
    eventAge.updateUnsafe(0, context);
  };
  return {
    event: (type) =>
      Effect.withFiber((fiber) => {
        eventUnsafe(type, fiber.context);
        return Effect.void;
      }),
    eventUnsafe,
    reconnect: one(reconnects),
    relist: one(relists),
    gone: one(gone),
    watchdog: one(watchdog),
    problem: (reason) => MetricRecording.update(MetricSeries.tagged(problems, { ...attributes, reason }), 1),
    seenUnsafe,
    age: (seconds) => MetricRecording.update(eventAge, seconds),
  };
};

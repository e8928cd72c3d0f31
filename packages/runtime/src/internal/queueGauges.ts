/**
 * The object queues' per-resource gauges, `kopf_queue_objects` and `kopf_queue_events`, read when
 * the metrics are read instead of set at every event. Each queue of a resource (one per namespace
 * watched) joins with its counts; the gauges give the sum over the queues that have joined and not
 * left. Their series are registered once per metric registry and resource and stay (at 0 once
 * every queue has left), as a series set at every change stayed at its last value.
 *
 * Set at every change, each queue had written its own counts into the resource's one series, so
 * with two namespaces watched the gauges showed whichever queue had changed last; and it took two
 * metric writes per queued and per taken event.
 */
import { MetricSeries } from "@kopf/client";
import * as Context from "effect/Context";
import * as Metric from "effect/Metric";
import * as Metrics from "../Metrics.ts";

/** What one queue counts now. */
export interface QueueCounts {
  /** Objects with a stream (queued or in-process events). */
  readonly objects: () => number;
  /** Events waiting in the streams. */
  readonly events: () => number;
}

/** The queues that have joined, by resource, per metric registry. */
const joined = new WeakMap<object, Map<string, Set<QueueCounts>>>();

const observed = (
  members: ReadonlySet<QueueCounts>,
  count: (counts: QueueCounts) => number,
): Metric.Metric.Hooks<number, Metric.GaugeState<number>> => ({
  get: () => {
    let value = 0;
    for (const counts of members) value += count(counts);
    return { value };
  },
  // The series' value is the queues' counts: updates through the metric (none are made) are ignored.
  update: () => {},
  modify: () => {},
});

/**
 * Adds a queue's counts to `resource`'s gauges in the metric registry of `context`; the returned
 * function takes them out again.
 *
 * @example
 * ```ts
 * const leave = QueueGauges.join(context, "kopfexamples.v1.kopf.dev", {
 *   objects: () => streams.size,
 *   events: () => queued,
 * })
 * ```
 */
export const join = (
  context: Context.Context<never>,
  resource: string,
  counts: QueueCounts,
): (() => void) => {
  const registry = Context.get(context, Metric.MetricRegistry);
  let byResource = joined.get(registry);
  if (byResource === undefined) {
    byResource = new Map();
    joined.set(registry, byResource);
  }
  let members = byResource.get(resource);
  if (members === undefined) {
    members = new Set();
    byResource.set(resource, members);
    const attributes = { resource };
    const objects = MetricSeries.tagged(Metrics.objectsQueued, attributes);
    const events = MetricSeries.tagged(Metrics.eventsQueued, attributes);
    Metric.registerUnsafe(
      objects,
      context,
      observed(members, (c) => c.objects()),
    );
    Metric.registerUnsafe(
      events,
      context,
      observed(members, (c) => c.events()),
    );
  }
  const group = members;
  group.add(counts);
  return () => {
    group.delete(counts);
  };
};

/**
 * Metric series by attributes, remembered: Effect's `Metric.withAttributes` makes a new metric
 * whose series key (the attributes sorted and serialised) is computed again on its first update,
 * so tagging a metric afresh on every update costs a serialisation per update. The operator
 * updates a handful of series (resource, handler, verb, code…) thousands of times a second; this
 * module hands out one tagged metric per distinct attribute set, so the key is computed once.
 *
 * Even a remembered `withAttributes` series recomputes its key whenever the series updated
 * before it was another one of the same metric (the wrapped metric remembers one key). Metrics
 * made with this module's {@link counter}, {@link gauge} and {@link histogram} are tagged as
 * metrics of their own with the attributes built in, each keeping its key; they land in the same
 * series of Effect's registry as `withAttributes` would.
 */
import * as Metric from "effect/Metric";

/** Distinct attribute sets kept per metric before the memory is cleared (ids made per object stay bounded). */
const LIMIT = 4096;

/**
 * The series of one metric, as a tree walked attribute by attribute (name, then value): a lookup
 * builds no key string, only reads maps keyed by the strings it is given (whose hashes V8 keeps).
 */
interface Node {
  series: object | undefined;
  readonly next: Map<string, Map<string, Node>>;
}
interface Root {
  node: Node;
  size: number;
}
const roots = new WeakMap<object, Root>();

/** How to make a metric of the same name and options with attributes built in. */
type Maker = (attributes: Record<string, string>) => object;
const makers = new WeakMap<object, Maker>();

/** The metric `make` makes without attributes, remembered with how to make its series. */
const withSeries = <M extends object>(make: (attributes: Record<string, string> | undefined) => M): M => {
  const made = make(undefined);
  makers.set(made, make);
  return made;
};

/** Options of {@link counter}: those of `Metric.counter` for numbers. */
export interface CounterOptions {
  readonly description?: string | undefined;
  readonly incremental?: boolean | undefined;
}

/**
 * `Metric.counter`, whose {@link tagged} series are metrics of their own (see the module comment).
 *
 * @example
 * ```ts
 * export const requests = MetricSeries.counter("kopf_api_requests_total", { incremental: true })
 * ```
 */
export const counter = (name: string, options: CounterOptions = {}): Metric.Counter<number> =>
  withSeries((attributes) => Metric.counter(name, { ...options, attributes }));

/** Options of {@link gauge}: those of `Metric.gauge` for numbers. */
export interface GaugeOptions {
  readonly description?: string | undefined;
}

/**
 * `Metric.gauge`, whose {@link tagged} series are metrics of their own (see the module comment).
 *
 * @example
 * ```ts
 * export const queued = MetricSeries.gauge("kopf_queue_objects", { description: "Objects queued" })
 * ```
 */
export const gauge = (name: string, options: GaugeOptions = {}): Metric.Gauge<number> =>
  withSeries((attributes) => Metric.gauge(name, { ...options, attributes }));

/** Options of {@link histogram}: those of `Metric.histogram`. */
export interface HistogramOptions {
  readonly description?: string | undefined;
  readonly boundaries: ReadonlyArray<number>;
}

/**
 * `Metric.histogram`, whose {@link tagged} series are metrics of their own (see the module comment).
 *
 * @example
 * ```ts
 * export const latency = MetricSeries.histogram("kopf_api_request_duration_seconds", { boundaries: [0.1, 1] })
 * ```
 */
export const histogram = (name: string, options: HistogramOptions): Metric.Histogram<number> =>
  withSeries((attributes) => Metric.histogram(name, { ...options, attributes }));
const newNode = (): Node => ({ series: undefined, next: new Map() });

/**
 * The metric tagged with these attributes (the same instance for equal attributes given in the
 * same order), ready for `Metric.update`/`Metric.modify`.
 *
 * @example
 * ```ts
 * yield* Metric.update(MetricSeries.tagged(requests, { verb: "patch", resource: "pods.v1" }), 1)
 * ```
 */
export const tagged = <I, S, A extends { readonly [K in keyof A]: string }>(
  metric: Metric.Metric<I, S>,
  attributes: A,
): Metric.Metric<I, S> => {
  let root = roots.get(metric);
  if (root === undefined) {
    root = { node: newNode(), size: 0 };
    roots.set(metric, root);
  }
  let node = root.node;
  for (const name in attributes) {
    const value: string = attributes[name];
    let byValue = node.next.get(name);
    if (byValue === undefined) {
      byValue = new Map();
      node.next.set(name, byValue);
    }
    let child = byValue.get(value);
    if (child === undefined) {
      child = newNode();
      byValue.set(value, child);
    }
    node = child;
  }
  if (node.series !== undefined) return node.series as Metric.Metric<I, S>;
  if (root.size >= LIMIT) {
    // Forget every series of this metric and start over (the updates already made stay recorded).
    root.node = newNode();
    root.size = 0;
    return tagged(metric, attributes);
  }
  const copy = { ...attributes } as Record<string, string>;
  const maker = makers.get(metric);
  const made =
    maker === undefined ? Metric.withAttributes(metric, copy) : (maker(copy) as Metric.Metric<I, S>);
  node.series = made;
  root.size += 1;
  return made;
};

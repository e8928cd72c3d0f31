/**
 * Metric series by attributes, remembered: Effect's `Metric.withAttributes` makes a new metric
 * whose series key (the attributes sorted and serialised) is computed again on its first update,
 * so tagging a metric afresh on every update costs a serialisation per update. The operator
 * updates a handful of series (resource, handler, verb, code…) thousands of times a second; this
 * module hands out one tagged metric per distinct attribute set, so the key is computed once.
 */
import * as Metric from "effect/Metric";

/** Distinct attribute sets kept per metric before the memory is cleared (ids made per object stay bounded). */
const LIMIT = 4096;
const series = new WeakMap<object, Map<string, object>>();

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
  let known = series.get(metric);
  if (known === undefined) {
    known = new Map();
    series.set(metric, known);
  }
  let key = "";
  for (const name in attributes) key += `${name}\u0000${attributes[name]}\u0001`;
  const found = known.get(key);
  if (found !== undefined) return found as Metric.Metric<I, S>;
  if (known.size >= LIMIT) known.clear();
  const made = Metric.withAttributes(metric, { ...attributes } as Record<string, string>);
  known.set(key, made);
  return made;
};

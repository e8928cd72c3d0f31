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
  const made = Metric.withAttributes(metric, { ...attributes } as Record<string, string>);
  node.series = made;
  root.size += 1;
  return made;
};

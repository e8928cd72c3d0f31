/**
 * Typed access to indices: every handler receives every index in its context under the index
 * handler's id, typed as unknown there. `kopf.indexOf(fn)` derives the index's key and value
 * types from what the index function returns (a `Map` or an object: its keys and values; any
 * other value: under the key `null`), so handlers read it typed, with no declaration to keep in
 * sync and no cast.
 */
import type { Index } from "@kopf/registry";
import * as Data from "effect/Data";

/** Reading an index that is not in the context (an id that no index handler has). */
export class IndexError extends Data.TaggedError("IndexError")<{
  readonly reason: "NoSuchIndex";
  readonly message: string;
}> {}

type Returned<F> = F extends (...args: never) => infer R ? Awaited<R> : never;

/** The `[key, value]` pairs of one result (distributed over unions; nothing for null/undefined). */
type Entries<R> = R extends null | undefined
  ? never
  : R extends ReadonlyMap<infer K, infer V>
    ? [K, V]
    : R extends ReadonlyArray<unknown>
      ? [null, R]
      : R extends { readonly [key: string]: infer V }
        ? [string, V]
        : [null, R];

/** The keys of the index an index function builds. */
export type IndexKey<F> = Entries<Returned<F>>[0];
/** The values of the index an index function builds. */
export type IndexValue<F> = Entries<Returned<F>>[1];

/** A typed handle on one index. */
export interface IndexRef<K, V> {
  /** The index's name: its handler's id. */
  readonly id: string;
  /** The index as the given handler context holds it. */
  readonly in: (context: object) => Index<K, V>;
}

/**
 * A typed handle on the index that `fn` builds (registered with `kopf.index`); `id` only when it
 * was registered with an explicit one.
 *
 * @example
 * ```ts
 * const podsByNode = kopf.index("pods", function pods_by_node({ spec, name }) {
 *   return spec.nodeName === undefined ? null : { [String(spec.nodeName)]: String(name) };
 * });
 * const byNode = kopf.indexOf(podsByNode); // IndexRef<string, string>
 *
 * kopf.timer("kopfexamples", { interval: 30 }, function report(ctx) {
 *   return { nodes: byNode.in(ctx).size };
 * });
 * ```
 */
export const indexOf = <F extends (...args: never) => unknown>(
  fn: F,
  options: { readonly id?: string } = {},
): IndexRef<IndexKey<F>, IndexValue<F>> => {
  const id = options.id ?? fn.name;
  return {
    id,
    in: (context) => {
      const found: unknown = (context as Readonly<Record<string, unknown>>)[id];
      if (found === undefined || found === null || typeof found !== "object" || !("get" in found)) {
        throw new IndexError({
          reason: "NoSuchIndex",
          message: `No index '${id}' in this handler's context: register an index handler with that id (kopf.index).`,
        });
      }
      // The runtime puts every index into every context under its handler's id, holding what
      // that handler returned: the types derived from the function are the index's types.
      return found as Index<IndexKey<F>, IndexValue<F>>;
    },
  };
};

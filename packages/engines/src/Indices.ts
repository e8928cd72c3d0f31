/**
 * In-memory indices (Kopf's `kopf.Index` and `kopf.Store`, docs/behaviour/indexing.md): an index maps keys to
 * stores; a store collects the values all objects put under that key (unordered, duplicates
 * allowed). Handlers get read-only views; the indexing engine changes them per object: an
 * object's contribution is replaced as a whole on each indexing, and removed on deletion,
 * filter mismatch or failure. Keys and values compare structurally (`{a: 1}` equals `{a: 1}`).
 */
import type { Index, Store } from "@kopf/registry";
import { canonical } from "./internal/canonical.ts";

class MutableStore<V> implements Store<V> {
  readonly byObject = new Map<string, V>();
  get size(): number {
    return this.byObject.size;
  }
  has(value: V): boolean {
    const wanted = canonical(value);
    for (const stored of this.byObject.values()) if (canonical(stored) === wanted) return true;
    return false;
  }
  [Symbol.iterator](): Iterator<V> {
    return this.byObject.values();
  }
  toString(): string {
    return `Store(${JSON.stringify([...this.byObject.values()])})`;
  }
}

/** An index the engine can change (and handlers only read). */
export class MutableIndex<K = unknown, V = unknown> implements Index<K, V> {
  readonly #entries = new Map<string, { readonly key: K; readonly store: MutableStore<V> }>();
  /** Per object: the canonical keys it contributes to. */
  readonly #contributions = new Map<string, Set<string>>();

  get size(): number {
    return this.#entries.size;
  }
  get(key: K): Store<V> | undefined {
    return this.#entries.get(canonical(key))?.store;
  }
  has(key: K): boolean {
    return this.#entries.has(canonical(key));
  }
  *keys(): Iterable<K> {
    for (const entry of this.#entries.values()) yield entry.key;
  }
  *[Symbol.iterator](): Iterator<readonly [K, Store<V>]> {
    for (const entry of this.#entries.values()) yield [entry.key, entry.store] as const;
  }

  /** Replaces everything `object` contributed with `pairs`; stores left empty disappear. */
  replace(object: string, pairs: ReadonlyArray<readonly [K, V]>): void {
    this.remove(object);
    const keys = new Set<string>();
    for (const [key, value] of pairs) {
      const text = canonical(key);
      let entry = this.#entries.get(text);
      if (entry === undefined) {
        entry = { key, store: new MutableStore<V>() };
        this.#entries.set(text, entry);
      }
      entry.store.byObject.set(object, value);
      keys.add(text);
    }
    if (keys.size > 0) this.#contributions.set(object, keys);
  }

  /** Removes everything `object` contributed. */
  remove(object: string): void {
    for (const text of this.#contributions.get(object) ?? []) {
      const entry = this.#entries.get(text);
      entry?.store.byObject.delete(object);
      if (entry !== undefined && entry.store.size === 0) this.#entries.delete(text);
    }
    this.#contributions.delete(object);
  }
}

/**
 * The key/value pairs an index handler's result stands for: a mapping (plain object or `Map`)
 * gives its entries; any other non-null value is stored under the key `null`; `null`/`undefined`
 * give `undefined` ("keep the previous values").
 *
 * @example
 * ```ts
 * Indices.pairsOf({ "ns1": "pod-a" }) // [["ns1", "pod-a"]]
 * Indices.pairsOf("pod-a")            // [[null, "pod-a"]]
 * Indices.pairsOf(null)               // undefined
 * ```
 */
export const pairsOf = (result: unknown): ReadonlyArray<readonly [unknown, unknown]> | undefined => {
  if (result === null || result === undefined) return undefined;
  if (result instanceof Map) return [...result.entries()];
  if (
    typeof result === "object" &&
    !Array.isArray(result) &&
    Object.getPrototypeOf(result) === Object.prototype
  ) {
    return Object.entries(result as Record<string, unknown>);
  }
  return [[null, result]];
};

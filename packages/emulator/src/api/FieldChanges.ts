/**
 * What an update changed in field-set terms: the paths of the new object that are new or hold a
 * different value, and the paths of the old object that are gone. Both versions are compared only
 * where they differ — a field holding the very same value in both (stored objects share what a
 * write did not touch) is skipped whole — so a write costs the size of its change, not of the object.
 */
import { type FieldSet, isIgnored, isWalkedObject, lookup, parentsOf, SEP, walkField } from "./FieldSet.ts";
import { deepEqual, isObject, type JsonObject } from "./internal/Json.ts";
import type { Shape } from "./TypeShape.ts";

export interface Changes {
  /** Paths of the new object not in the old one, or that are leaves holding another value. */
  readonly changed: FieldSet;
  /** Paths of the old object not in the new one. */
  readonly removed: FieldSet;
}

/**
 * The changes from `old` to `next`: the same as comparing their whole field sets (an update's
 * field set, see {@link FieldSet.of}), computed from the fields that differ.
 *
 * @example
 * changes({ spec: { a: 1, b: 2 } }, { spec: { a: 1, c: 3 } }, shape)
 * // { changed: Set { "f:spec\nf:c" }, removed: Set { "f:spec\nf:b" } }
 */
export const changes = (old: JsonObject, next: JsonObject, shape: Shape): Changes => {
  const out = { changed: new Set<string>(), removed: new Set<string>() };
  compare(old, next, "", [], shape, false, out);
  return out;
};

/** Compares two walked objects at the same place (`prefix`, reached by `names`). */
const compare = (
  old: JsonObject,
  next: JsonObject,
  prefix: string,
  names: ReadonlyArray<string>,
  shape: Shape,
  inItem: boolean,
  out: Changes,
): void => {
  for (const k in next) {
    if (!Object.hasOwn(next, k) || isIgnored(names, k)) continue;
    const v = next[k];
    const had = Object.hasOwn(old, k);
    const was = had ? old[k] : undefined;
    if (had && was === v) continue;
    const childNames = [...names, k];
    if (had && isWalkedObject(was, childNames, shape) && isWalkedObject(v, childNames, shape)) {
      // The field is a node in both or in neither; as a node it changed only when it is a leaf of
      // the new object (nothing below it) holding another value.
      const key = prefix === "" ? `f:${k}` : `${prefix}${SEP}f:${k}`;
      if (shape.isMember(childNames, inItem) && !ownsAny(v, childNames, shape, inItem) && !deepEqual(was, v))
        out.changed.add(key);
      compare(was, v, key, childNames, shape, inItem, out);
      continue;
    }
    const now = new Set<string>();
    walkField(k, v, prefix, names, shape, "update", now, inItem);
    const before = new Set<string>();
    if (had) walkField(k, was, prefix, names, shape, "update", before, inItem);
    const parents = parentsOf(now);
    const relative = (p: string) => (prefix === "" ? p : p.slice(prefix.length + 1));
    for (const p of now)
      if (
        !before.has(p) ||
        (!parents.has(p) && !deepEqual(lookup(old, relative(p)).value, lookup(next, relative(p)).value))
      )
        out.changed.add(p);
    for (const p of before) if (!now.has(p)) out.removed.add(p);
  }
  for (const k in old)
    if (Object.hasOwn(old, k) && !Object.hasOwn(next, k) && !isIgnored(names, k))
      walkField(k, old[k], prefix, names, shape, "update", out.removed, inItem);
};

/** Whether walking a walked object adds any path (whether its field is a parent in the set). */
const ownsAny = (value: JsonObject, names: ReadonlyArray<string>, shape: Shape, inItem: boolean): boolean => {
  for (const k in value) {
    if (!Object.hasOwn(value, k) || isIgnored(names, k)) continue;
    const v = value[k];
    const childNames = [...names, k];
    // A list always adds a path: itself (atomic, empty or unkeyed) or its items.
    if (Array.isArray(v)) return true;
    if (isWalkedObject(v, childNames, shape)) {
      if (shape.isMember(childNames, inItem) || ownsAny(v, childNames, shape, inItem)) return true;
    } else if (!isObject(v) || shape.isAtomic(childNames) || shape.isMember(childNames, inItem)) return true;
  }
  return false;
};

/**
 * Diffs between two versions of an object (docs/behaviour/causes.md#diffs) and their reduction to one field for
 * field handlers (docs/behaviour/causes.md#field-diffs). A diff lists what was added, changed or removed, field by field;
 * lists are compared whole, never element by element.
 */
import * as FieldPath from "./FieldPath.ts";
import { presentKeys } from "./internal/ownKeys.ts";
import { deepEqual, isObject } from "./Json.ts";

/** What happened to a field. */
export type DiffOperation = "add" | "change" | "remove";

/** One change: `old` is `null` for additions, `new` is `null` for removals. */
export interface DiffItem {
  readonly op: DiffOperation;
  readonly field: FieldPath.FieldPath;
  readonly old: unknown;
  readonly new: unknown;
}

/** A sequence of changes. */
export type Diff = ReadonlyArray<DiffItem>;

/**
 * Which keys of two objects are compared: `"full"` all of them, `"left"` only those present in
 * the old object (used to detect patch inconsistencies), `"right"` only those in the new one.
 * Keys present on both sides are always compared.
 */
export type DiffScope = "full" | "left" | "right";

/** An empty diff. */
export const empty: Diff = Object.freeze([]);

const isAbsent = (x: unknown): x is null | undefined => x === null || x === undefined;

/** Whether `key` is an own key of `x` whose value is not `undefined`. */
const isPresent = (x: { readonly [key: string]: unknown }, key: string): boolean =>
  Object.hasOwn(x, key) && x[key] !== undefined;

const item = (op: DiffOperation, field: FieldPath.FieldPath, old: unknown, neu: unknown): DiffItem => ({
  op,
  field,
  old: old ?? null,
  new: neu ?? null,
});

const walk = (a: unknown, b: unknown, path: FieldPath.FieldPath, scope: DiffScope, out: Array<DiffItem>) => {
  if (isAbsent(a) && isAbsent(b)) return;
  // Two objects under a one-sided scope are walked by one side's keys, and give nothing where
  // those are all equal: asking first whether the whole objects are equal would count the other
  // side's keys at every level (a whole body, against a patch), and find them unequal.
  const oneSided = scope !== "full" && isObject(a) && isObject(b);
  if (!oneSided && deepEqual(a, b)) return;
  if (isAbsent(a)) {
    out.push(item("add", path, null, b));
  } else if (isAbsent(b)) {
    out.push(item("remove", path, a, null));
  } else if (isObject(a) && isObject(b)) {
    // A one-sided scope walks only that side's keys (the other side may be a whole, large body).
    const keys =
      scope === "left"
        ? presentKeys(a).sort()
        : scope === "right"
          ? presentKeys(b).sort()
          : [...new Set([...presentKeys(a), ...presentKeys(b)])].sort();
    for (const key of keys) {
      const inA = isPresent(a, key);
      const inB = isPresent(b, key);
      if (!inA && scope === "left") continue;
      if (!inB && scope === "right") continue;
      walk(inA ? a[key] : null, inB ? b[key] : null, [...path, key], scope, out);
    }
  } else {
    out.push(item("change", path, a, b));
  }
};

/**
 * The changes that turn `a` into `b`. `null` and `undefined` both mean "absent". Objects are
 * compared key by key (keys in sorted order); everything else, lists included, is compared
 * whole.
 *
 * @example
 * diff({ spec: { size: "42G" } }, { spec: { size: "76G" } })
 * // [{ op: "change", field: ["spec", "size"], old: "42G", new: "76G" }]
 */
export const diff = (a: unknown, b: unknown, scope: DiffScope = "full"): Diff => {
  const out: Array<DiffItem> = [];
  walk(a, b, [], scope, out);
  return out;
};

/**
 * The part of a diff that concerns the field at `path`, with paths made relative to it. Items
 * inside the field are kept (prefix stripped); an item on an ancestor of the field (e.g. the
 * whole `spec` added) is narrowed to a fresh diff of the field's old and new values; other
 * items are dropped. An empty path keeps the diff as it is.
 *
 * @example
 * reduce([{ op: "add", field: ["spec"], old: null, new: { size: 1 } }], ["spec", "size"])
 * // [{ op: "add", field: [], old: null, new: 1 }]
 */
export const reduce = (d: Diff, path: FieldPath.FieldPath): Diff => {
  if (path.length === 0) return d;
  const out: Array<DiffItem> = [];
  for (const it of d) {
    if (FieldPath.startsWith(it.field, path)) {
      out.push(item(it.op, it.field.slice(path.length), it.old, it.new));
    } else if (FieldPath.startsWith(path, it.field)) {
      const tail = path.slice(it.field.length);
      walk(FieldPath.resolve(it.old, tail), FieldPath.resolve(it.new, tail), [], "full", out);
    }
  }
  return out;
};

/**
 * Whether two diffs hold the same items in the same order.
 *
 * @example
 * equals(diff(1, 2), [{ op: "change", field: [], old: 1, new: 2 }]) // true
 */
export const equals = (a: Diff, b: Diff): boolean =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i]!;
    return (
      x.op === y.op &&
      x.field.length === y.field.length &&
      FieldPath.startsWith(x.field, y.field) &&
      deepEqual(x.old, y.old) &&
      deepEqual(x.new, y.new)
    );
  });

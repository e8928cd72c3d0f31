/**
 * Kopf's in-place dictionary operations (`dicts.ensure`, `dicts.remove`, `cherrypick`) on
 * mutable JSON-like objects, with Kopf's exact semantics: `remove` also drops already-empty
 * parents along the path, which @kopf/structs' immutable `FieldPath.remove` deliberately does
 * not; essences must match Kopf's byte for byte, so the storages use these.
 */
import { FieldPath, Json } from "@kopf/structs";

/** A mutable JSON-like object (a deep copy owned by the caller, or a merge-patch dict). */
export type MutableObject = { [key: string]: unknown };

export const isMutableObject = (value: unknown): value is MutableObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The value at `path`, or `undefined` if absent. Unlike `FieldPath.resolve`, any non-array object
 * is walked, including the proxies of a @kopf/structs `Patch` (not plain objects by prototype).
 */
export const lookup = (source: unknown, path: FieldPath.FieldPath): unknown => {
  let current: unknown = source;
  for (const key of path) {
    if (!isMutableObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
};

/** Write a key as data, also `__proto__` (a plain assignment would replace the prototype). */
export const put = (target: MutableObject, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
};

/** Set `value` at `path`, creating missing (or non-object) parents as empty objects. */
export const ensure = (target: MutableObject, path: FieldPath.FieldPath, value: unknown): void => {
  const last = path[path.length - 1];
  if (last === undefined) return;
  let current = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i] as string;
    let next = Object.hasOwn(current, key) ? current[key] : undefined;
    if (!isMutableObject(next)) {
      put(current, key, {});
      next = current[key];
    }
    current = next as MutableObject;
  }
  put(current, last, value);
};

/**
 * Remove the key at `path` and every parent on the path that is (or becomes) empty. A missing
 * key is fine; a non-object on the way stops quietly (Kopf's callers swallow that TypeError).
 */
export const remove = (target: MutableObject, path: FieldPath.FieldPath): void => removeFrom(target, path, 0);

// The walk goes by index: no copy of the path's rest per level.
const removeFrom = (target: MutableObject, path: FieldPath.FieldPath, at: number): void => {
  const head = path[at];
  if (head === undefined || !Object.hasOwn(target, head)) return;
  if (at === path.length - 1) {
    delete target[head];
    return;
  }
  const child = target[head];
  if (!isMutableObject(child)) return;
  removeFrom(child, path, at + 1);
  if (Object.keys(child).length === 0) delete target[head];
};

/** Whether {@link remove} would change `target` (so that a copy can be spared when it would not). */
export const removes = (target: MutableObject, path: FieldPath.FieldPath): boolean =>
  removesFrom(target, path, 0);

const removesFrom = (target: MutableObject, path: FieldPath.FieldPath, at: number): boolean => {
  const head = path[at];
  if (head === undefined || !Object.hasOwn(target, head)) return false;
  if (at === path.length - 1) return true;
  const child = target[head];
  if (!isMutableObject(child)) return false;
  return removesFrom(child, path, at + 1) || Object.keys(child).length === 0;
};

/** Copy (deeply) each field present in `source` into `target` at the same path. */
export const cherrypick = (
  source: unknown,
  target: MutableObject,
  fields: Iterable<FieldPath.FieldPath>,
): void => {
  for (const path of fields) {
    if (path.length === 0) continue;
    const value = FieldPath.resolve(source, path);
    if (value !== undefined) ensure(target, path, Json.deepCopy(value));
  }
};

/**
 * Delete the field at `path`: via the patch (`null`) if the object has it, else from the
 * pending patch if only the patch has it; otherwise nothing (Kopf's storage `purge`).
 */
export const purgeField = (body: unknown, patch: MutableObject, path: FieldPath.FieldPath): void => {
  if (FieldPath.resolve(body, path) !== undefined) ensure(patch, path, null);
  else if (lookup(patch, path) !== undefined) remove(patch, path);
};

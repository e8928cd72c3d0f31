/**
 * Field paths: the addresses of fields inside an object body (`["spec", "replicas"]`, written
 * `"spec.replicas"` by users), with lenient reading (`resolve`, `has`) and immutable writing
 * (`set`, `remove` with Kopf's cascading removal of emptied parents).
 */

import * as Data from "effect/Data";
import * as Result from "effect/Result";
import { getOwn, hasOwn, setOwn } from "./internal/ownKeys.ts";
import { isObject } from "./Json.ts";

/** A path of keys from the root of an object; `[]` is the root itself. */
export type FieldPath = ReadonlyArray<string>;

/** What users may pass where a field is expected: a dotted string or a list of keys. */
export type FieldSpec = string | ReadonlyArray<string>;

/**
 * Parses a field spec into a path: `"a.b"` ⇒ `["a", "b"]`, arrays are copied as they are,
 * `null`, `undefined` and `""` ⇒ `[]` (the root).
 *
 * @example
 * parse("spec.replicas") // ["spec", "replicas"]
 * parse(["metadata", "labels", "app.kubernetes.io/name"]) // keys with dots stay whole
 */
export const parse = (spec: FieldSpec | null | undefined): FieldPath => {
  if (spec === null || spec === undefined || spec === "") return [];
  if (typeof spec === "string") return spec.split(".");
  return [...spec];
};

/** A field spec of the wrong shape (from untyped callers, e.g. JavaScript or YAML options). */
export class FieldPathError extends Data.TaggedError("FieldPathError")<{
  readonly reason: "InvalidSpec";
  readonly message: string;
}> {}

/**
 * Like `parse`, for values of unknown type: a string, an array of strings, `null` or
 * `undefined`; anything else fails with an error naming what was given (Kopf's `ValueError`).
 *
 * @example
 * decode("spec.size") // Result.succeed(["spec", "size"])
 * decode({ a: 1 })    // Result.fail(FieldPathError "A field must be a string or an array of strings; got an object.")
 */
export const decode = (spec: unknown): Result.Result<FieldPath, FieldPathError> => {
  if (spec === null || spec === undefined || typeof spec === "string") return Result.succeed(parse(spec));
  if (Array.isArray(spec) && spec.every((key) => typeof key === "string")) return Result.succeed(parse(spec));
  const what = Array.isArray(spec)
    ? "an array with non-string keys"
    : `a${typeof spec === "object" ? "n" : ""} ${typeof spec}`;
  return Result.fail(
    new FieldPathError({
      reason: "InvalidSpec",
      message: `A field must be a string or an array of strings; got ${what}.`,
    }),
  );
};

/**
 * Formats a path as a dotted string (`[]` ⇒ `""`).
 *
 * @example
 * format(["spec", "replicas"]) // "spec.replicas"
 */
export const format = (path: FieldPath): string => path.join(".");

/**
 * Whether `path` begins with `prefix` (every path starts with `[]`).
 *
 * @example
 * startsWith(["spec", "size"], ["spec"]) // true
 */
export const startsWith = (path: FieldPath, prefix: FieldPath): boolean =>
  prefix.length <= path.length && prefix.every((key, i) => path[i] === key);

/**
 * The value at `path` inside `obj`, or `undefined` when any key is missing or an intermediate
 * value is not an object (lists are not traversed). Only own keys are read.
 *
 * @example
 * resolve({ spec: { replicas: 3 } }, ["spec", "replicas"]) // 3
 * resolve({ spec: "text" }, ["spec", "replicas"]) // undefined
 */
export const resolve = (obj: unknown, path: FieldPath): unknown => {
  let current: unknown = obj;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = getOwn(current, key);
  }
  return current;
};

/**
 * Whether a value (possibly `null`) is present at `path`.
 *
 * @example
 * has({ status: { ready: null } }, ["status", "ready"]) // true
 * has({ status: {} }, ["status", "ready"]) // false
 */
export const has = (obj: unknown, path: FieldPath): boolean => resolve(obj, path) !== undefined;

/**
 * A new object with `value` stored at `path`; intermediate objects are created where missing
 * (and non-object intermediates replaced by objects). Untouched branches are shared with `obj`,
 * which is never mutated. With an empty path, `value` replaces the root if it is an object;
 * otherwise `obj` is returned as is.
 *
 * @example
 * set({ spec: { a: 1 } }, ["status", "phase"], "Ready") // { spec: { a: 1 }, status: { phase: "Ready" } }
 */
export const set = <A extends object>(obj: A, path: FieldPath, value: unknown): A => {
  const [head, ...tail] = path;
  if (head === undefined) return (isObject(value) ? value : obj) as A;
  const out = { ...obj };
  if (tail.length === 0) {
    setOwn(out, head, value);
  } else {
    const child = getOwn(obj, head);
    setOwn(out, head, set(isObject(child) ? child : {}, tail, value));
  }
  return out;
};

/**
 * A new object without the key at `path`, as Kopf's `dicts.remove`: every object along the path
 * that is empty afterwards is removed too, up to the root, even if the key itself was already
 * absent (`remove({ a: {} }, ["a", "b"])` ⇒ `{}`). A missing branch, a non-object intermediate
 * or an empty path leave `obj` unchanged (the same reference is returned). `obj` is never mutated.
 *
 * @example
 * remove({ a: { b: { c: 1 } }, x: 1 }, ["a", "b", "c"]) // { x: 1 }
 * remove({ a: { b: 1, c: 2 } }, ["a", "b"]) // { a: { c: 2 } }
 */
export const remove = <A extends object>(obj: A, path: FieldPath): A => {
  const [head, ...tail] = path;
  if (head === undefined || !hasOwn(obj, head)) return obj;
  const out = { ...obj } as Record<string, unknown>;
  if (tail.length === 0) {
    delete out[head];
    return out as A;
  }
  const child = getOwn(obj, head);
  if (!isObject(child)) return obj;
  const reduced = remove(child, tail);
  if (Object.keys(reduced).length === 0) delete out[head];
  else if (reduced === child) return obj;
  else setOwn(out, head, reduced);
  return out as A;
};

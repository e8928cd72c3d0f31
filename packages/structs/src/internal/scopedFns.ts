/**
 * Patch functions that say which fields they change, so that a JSON patch is made from a copy
 * of those fields alone. Rendering patch functions as a JSON patch applies them to a copy of the
 * body and diffs the copy with the body; for a function that may change anything, that copy is
 * deep and the diff walks all of it (managed fields, annotations, spec, status). A scoped
 * function (the framework's own finalizer functions) promises to read and change only the
 * containers on the way to its paths and the values at them: the copy then shares everything
 * else with the body, and the diff finds those shared parts equal at once (they are the same
 * objects). The operations are the same either way; only the work differs.
 */
import type { MutableBody, RawBody } from "../Body.ts";
import type * as FieldPath from "../FieldPath.ts";
import { deepCopy, isObject } from "../Json.ts";
import { getOwn, setOwn } from "./ownKeys.ts";

type Fn = (body: MutableBody) => void;

const scopes = new WeakMap<Fn, ReadonlyArray<FieldPath.FieldPath>>();

/**
 * Marks `fn` as changing only the fields at `paths` (and the containers on the way to them),
 * and returns it.
 *
 * @example
 * const addFinalizer = scoped([["metadata", "finalizers"]], (body) => { … })
 */
export const scoped = <F extends Fn>(paths: ReadonlyArray<FieldPath.FieldPath>, fn: F): F => {
  scopes.set(fn, paths);
  return fn;
};

/**
 * The paths all of `fns` change, or `undefined` when any of them is not scoped (and so may
 * change anything).
 *
 * @example
 * scopeOf([addFinalizer]) // [["metadata", "finalizers"]]
 * scopeOf([addFinalizer, (body) => { body.spec = {} }]) // undefined
 */
export const scopeOf = (fns: ReadonlyArray<Fn>): ReadonlyArray<FieldPath.FieldPath> | undefined => {
  const all: Array<FieldPath.FieldPath> = [];
  for (const fn of fns) {
    const paths = scopes.get(fn);
    if (paths === undefined) return undefined;
    all.push(...paths);
  }
  return all;
};

/**
 * A private copy of `body` for functions that change only `paths`: every container on the way
 * to a path copied one level, the value at the path copied deeply, everything else shared with
 * `body`. A path stops where a container on its way is missing or not a container (the function
 * creates what it needs in the copied container above).
 *
 * @example
 * const copy = copyAlong(body, [["metadata", "finalizers"]])
 * copy.spec === body.spec // true
 * copy.metadata === body.metadata // false
 */
export const copyAlong = (body: RawBody, paths: ReadonlyArray<FieldPath.FieldPath>): MutableBody => {
  // One level of `deepCopy`: keys holding `undefined` are left out, as the whole copy does, so
  // the functions see the containers they change exactly as they would in it.
  const copyOf = (value: object): object => {
    if (Array.isArray(value)) return value.slice();
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) setOwn(out, key, item);
    }
    return out;
  };
  const top = copyOf(body) as MutableBody;
  for (const path of paths) {
    let parent: object = top;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string;
      const child = getOwn(parent, key);
      if (i === path.length - 1) {
        if (child !== undefined) setOwn(parent, key, deepCopy(child));
        break;
      }
      if (!isObject(child) && !Array.isArray(child)) break;
      // A container a path before this one copied already is copied again: harmless, and the
      // finalizer functions have one path.
      const next = copyOf(child);
      setOwn(parent, key, next);
      parent = next;
    }
  }
  return top;
};

/**
 * Flattening of the objects a hierarchies call gets (Kopf's `dicts.walk`): one object, or any
 * nesting of arrays, sets and other iterables of objects; `null`/`undefined` yield nothing. With
 * `nested` field paths (`"spec.template"`), the sub-objects at those paths are yielded too,
 * after their object; missing paths and non-object values on the way are skipped.
 */
import { HierarchyError } from "../HierarchyError.ts";

/** A mutable Kubernetes object (a plain object or a model instance with the same fields). */
export type Obj = { [key: string]: any };

const isIterable = (value: object): value is Iterable<unknown> =>
  typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";

const describe = (value: unknown): string =>
  value === null ? "null" : typeof value === "object" ? (value.constructor?.name ?? "object") : typeof value;

const resolve = (obj: Obj, path: string): Obj | undefined => {
  let current: unknown = obj;
  for (const part of path.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Obj)[part];
  }
  return typeof current === "object" && current !== null && !Array.isArray(current)
    ? (current as Obj)
    : undefined;
};

/**
 * The objects in `objs`, flattened, each followed by its `nested` sub-objects.
 * Throws `HierarchyError("NotAnObject")` on primitives (strings included) anywhere in the nesting.
 */
export const walk = (objs: unknown, nested: ReadonlyArray<string> = []): Array<Obj> => {
  const found: Array<Obj> = [];
  const visit = (value: unknown): void => {
    if (value === null || value === undefined) return;
    if (typeof value !== "object") {
      throw new HierarchyError({
        reason: "NotAnObject",
        message: `K8s object class is not supported: ${describe(value)}. Pass an object or (nested) arrays of objects.`,
      });
    }
    if (isIterable(value)) {
      for (const item of value) visit(item);
      return;
    }
    const obj = value as Obj;
    found.push(obj);
    for (const path of nested) {
      const sub = resolve(obj, path);
      if (sub !== undefined) found.push(sub);
    }
  };
  visit(objs);
  return found;
};

/** The object's `metadata`, created (empty) when absent or null. */
export const metadataOf = (obj: Obj): Obj => {
  if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
  return obj.metadata as Obj;
};

/** Normalises Kopf's `nested` argument: one path or several. */
export const nestedPaths = (nested: string | Iterable<string> | undefined): ReadonlyArray<string> =>
  nested === undefined ? [] : typeof nested === "string" ? [nested] : [...nested];

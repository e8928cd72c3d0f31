/** JSON merge patch (RFC 7386): objects merge recursively, `null` deletes, everything else replaces. */
import { isObject, type JsonObject } from "./internal/Json.ts";

/**
 * Applies a merge patch to a document; neither input is modified.
 *
 * @example
 * applyMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }) // { a: 1, b: { d: 3 } }
 */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
};

/** The merge patch that turns `from` into `to` (used for diffs of objects). */
export const createMergePatch = (from: unknown, to: unknown): unknown => {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    const before = from[key];
    if (isObject(before) && isObject(value)) {
      const sub = createMergePatch(before, value);
      if (isObject(sub) && Object.keys(sub).length > 0) patch[key] = sub;
    } else if (JSON.stringify(before) !== JSON.stringify(value)) patch[key] = value;
  }
  return patch;
};

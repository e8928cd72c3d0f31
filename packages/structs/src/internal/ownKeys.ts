/**
 * Safe own-property helpers for plain JSON-like objects: reading only own keys (never the
 * prototype's `constructor`/`toString`) and writing keys such as `__proto__` as ordinary data.
 */

/** Whether `obj` has `key` as an own property. */
export const hasOwn = (obj: object, key: string): boolean => Object.hasOwn(obj, key);

/** Reads an own property, or `undefined` when absent (inherited properties are ignored). */
export const getOwn = (obj: object, key: string): unknown =>
  Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;

/**
 * Writes `value` under `key` as a plain, enumerable data property, also for `__proto__`
 * (a plain assignment would change the prototype instead of storing data).
 */
export const setOwn = (obj: object, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    (obj as Record<string, unknown>)[key] = value;
  }
};

/** Own keys whose values are not `undefined` (JSON treats those as absent). */
export const presentKeys = (x: { readonly [key: string]: unknown }): Array<string> =>
  Object.keys(x).filter((k) => x[k] !== undefined);

/**
 * A shallow copy of `obj` without `key`, its other keys in their order. Where the object is a
 * private copy anyway, this takes a key away without `delete`, which turns a V8 object into a
 * slow dictionary for every later read of it (a diff, a serialisation).
 */
export const withoutKey = <A extends object>(obj: A, key: string): A => {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) if (k !== key) setOwn(out, k, (obj as Record<string, unknown>)[k]);
  return out as A;
};

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

/**
 * Canonical text of JSON-like values: equal structures (objects in any key order) give equal
 * text. Used to compare index keys and stored values structurally, as Python compares dicts,
 * tuples and strings by value.
 */

/** The canonical text of a value (objects with sorted keys; Maps as sorted entry lists). */
export const canonical = (value: unknown): string => {
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? String(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => `${canonical(k)}:${canonical(v)}`).sort();
    return `Map{${entries.join(",")}}`;
  }
  if (value instanceof Set) return `Set{${[...value].map(canonical).sort().join(",")}}`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
};

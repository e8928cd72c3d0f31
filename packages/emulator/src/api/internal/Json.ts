/** Plain JSON helpers for the emulator: object checks, deep equality, deep copies and byte encoding. */

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const asObject = (value: unknown): JsonObject => (isObject(value) ? value : {});

export const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
};

/**
 * A deep copy of a JSON value: objects and arrays are copied (a `__proto__` key stays an own field),
 * anything else is returned as it is. Several times faster than `structuredClone` on the small
 * objects of API requests.
 */
export const clone = <A>(value: A): A => copyJson(value) as A;

const copyJson = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: JsonObject = {};
  for (const k of Object.keys(value)) putField(out, k, copyJson((value as JsonObject)[k]));
  return out;
};

/** Sets a field as an own one, `__proto__` too (`out["__proto__"] = v` would change the prototype). */
export const putField = (out: JsonObject, key: string, value: unknown): void => {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The object {@link storedJson} serialised last, and its text. */
let lastStored: unknown;
let lastStoredText = "";

/**
 * The JSON text of a stored object (never mutated once stored), serialised once for the write
 * that stored it: its watch events and its response (through {@link encode}) send the same text.
 * Only the last object is kept, so the text never outlives the write that needs it.
 */
export const storedJson = (obj: JsonObject): string => {
  if (obj !== lastStored) {
    lastStoredText = JSON.stringify(obj);
    lastStored = obj;
  }
  return lastStoredText;
};

/**
 * The bytes of a response body. They live only until the response is sent, so they are taken from
 * Node.js's pool of small buffers (`Buffer.from`), several times cheaper per call than
 * `TextEncoder`, which allocates a fresh `ArrayBuffer` each time. Bytes kept for long (the watch
 * history's lines, {@link encodeText}) are not: a pooled slice keeps its whole 8 KiB slab alive.
 */
export const encode = (value: unknown): Uint8Array =>
  Buffer.from(value === lastStored ? lastStoredText : JSON.stringify(value), "utf8");
export const encodeText = (text: string): Uint8Array => encoder.encode(text);
export const decodeText = (bytes: Uint8Array): string | undefined => {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
};

/** The metadata object of a stored object (always an object). */
export const metaOf = (obj: JsonObject): JsonObject => asObject(obj.metadata);

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Reads a dotted path (already split) from a JSON value. */
export const getPath = (value: unknown, path: ReadonlyArray<string>): unknown => {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
};

/** Returns a copy of `value` with `path` set to `next`, creating objects on the way. */
export const setPath = (value: JsonObject, path: ReadonlyArray<string>, next: unknown): JsonObject => {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const copy = { ...value };
  if (rest.length === 0) {
    if (next === undefined) delete copy[head];
    else copy[head] = next;
  } else copy[head] = setPath(asObject(copy[head]), rest, next);
  return copy;
};

/** The name of a JSON value's type as Go's decoder words it in "cannot unmarshal X into …". */
export const goType = (v: unknown): string =>
  Array.isArray(v)
    ? "array"
    : v === null
      ? "null"
      : typeof v === "object"
        ? "object"
        : typeof v === "boolean"
          ? "bool"
          : typeof v;

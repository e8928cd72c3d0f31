/**
 * JSON values as Kubernetes sends them, and the few operations every layer needs on them:
 * plain-object checks, deep equality, deep copies, and `pyDumps`, a byte-exact rendering of
 * Python's `json.dumps(value, separators=(",", ":"))` so that annotations written by this port
 * read exactly like those written by Kopf.
 */
import { setOwn } from "./internal/ownKeys.ts";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | JsonObject;

/** A JSON object (a "mapping" in Kopf's terms). */
export interface JsonObject {
  readonly [key: string]: JsonValue | undefined;
}

/**
 * Whether `x` is a JSON mapping: a plain object (not `null`, not an array, not a class
 * instance such as `Date` or a `Patch`; read a patch with `toMergePatch()`).
 *
 * @example
 * isObject({ a: 1 }) // true
 * isObject([1]) // false
 * isObject(null) // false
 */
export const isObject = (x: unknown): x is { readonly [key: string]: unknown } => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
};

/** How many own keys of `x` hold a value (not `undefined`), counted without a key list. */
const presentCount = (x: { readonly [key: string]: unknown }): number => {
  let count = 0;
  for (const k in x) if (Object.hasOwn(x, k) && x[k] !== undefined) count += 1;
  return count;
};

/**
 * Structural equality of JSON-like values: arrays element by element, objects by their keys
 * regardless of order (a key holding `undefined` counts as absent), scalars by value (`NaN`
 * equals `NaN`).
 *
 * @example
 * deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }) // true
 * deepEqual({ a: 1, b: undefined }, { a: 1 }) // true
 */
export const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    // Asked for every field of every diff: no key lists are made. The present keys are counted
    // first, so objects of different sizes (a patch against a whole body) differ before any value
    // is compared; then every present key of `a` must be in `b` with an equal value.
    if (presentCount(a) !== presentCount(b)) return false;
    for (const k in a) {
      if (!Object.hasOwn(a, k) || a[k] === undefined) continue;
      if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
};

/**
 * A deep copy of arrays and plain objects; other values (scalars, class instances) are shared.
 * Keys holding `undefined` are dropped, as JSON would.
 *
 * @example
 * const copy = deepCopy({ spec: { replicas: 1 } })
 */
export const deepCopy = <A>(x: A): A => {
  if (Array.isArray(x)) return x.map((item) => deepCopy(item)) as A;
  if (isObject(x)) {
    const out: Record<string, unknown> = {};
    // The keys are own ones (Object.keys), so they are read directly.
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (v !== undefined) setOwn(out, k, deepCopy(v));
    }
    return out as A;
  }
  return x;
};

// --- pyDumps -------------------------------------------------------------------------------

const SIMPLE_ESCAPES: Readonly<Record<number, string>> = {
  8: "\\b",
  9: "\\t",
  10: "\\n",
  12: "\\f",
  13: "\\r",
  34: '\\"',
  92: "\\\\",
};

const PRINTABLE_ASCII = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string literal as Python's `json.dumps(..., ensure_ascii=True)` writes it. */
const dumpString = (s: string): string => {
  if (PRINTABLE_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const simple = SIMPLE_ESCAPES[code];
    if (simple !== undefined) out += simple;
    else if (code >= 0x20 && code <= 0x7e) out += s[i];
    // UTF-16 code units map 1:1 to Python's escapes: astral characters become surrogate pairs,
    // lone surrogates are escaped as themselves.
    else out += "\\u" + code.toString(16).padStart(4, "0");
  }
  return out + '"';
};

/** A number as Python's `json.dumps` writes an `int` (integral values) or a `float` (others). */
const dumpNumber = (x: number): string => {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  // Integral values as JSON.stringify writes them: digits below 1e21 (a Python int), exponent
  // form above (then identical to Python's float repr).
  if (Number.isInteger(x)) return String(x);
  // Python's float repr: the shortest round-tripping digits (as in JS), but in scientific
  // notation when the decimal exponent is < -4 or >= 16, with a signed two-digit exponent.
  const [mantissa = "", expText = "0"] = x.toExponential().split("e");
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) return String(x);
  const sign = exp < 0 ? "-" : "+";
  return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
};

const dumpValue = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return dumpString(value);
    case "number":
      return dumpNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) {
    return "[" + value.map((item) => dumpValue(item) ?? "null").join(",") + "]";
  }
  const obj = value as Record<string, unknown>;
  const parts: Array<string> = [];
  for (const key of Object.keys(obj)) {
    const dumped = dumpValue(obj[key]);
    if (dumped !== undefined) parts.push(dumpString(key) + ":" + dumped);
  }
  return "{" + parts.join(",") + "}";
};

/**
 * Compact JSON exactly as Python's `json.dumps(value, separators=(",", ":"))` renders it:
 * keys in insertion order, every character outside printable ASCII escaped as lowercase
 * `\uXXXX` (astral characters as surrogate pairs), control characters as `\n`, `\t`, … or
 * `\u00XX`. Keys holding `undefined` are skipped, `undefined` array items become `null` (as in
 * `JSON.stringify`).
 *
 * Numbers are written exactly as Python writes the value it would parse from this port's own
 * JSON: integral values as integers (`1e21` and above in exponent form), others in Python's
 * float notation (`1e-05`, `1.5e+16`). Known residual differences from Kopf: JavaScript cannot
 * tell `1.0` from `1` (Python writes `1.0` for a float, this writes `1`, likewise `1e16` for
 * `1e+16`), and integers beyond 2^53 have already lost precision when parsed. Objects with
 * integer-like keys (`"1"`, `"2"`) enumerate those first in JavaScript, unlike Python dicts.
 *
 * @example
 * pyDumps({ a: "é", b: [1, 2.5] }) // '{"a":"\\u00e9","b":[1,2.5]}'
 */
export const pyDumps = (value: JsonValue): string =>
  (nativeAgrees(value) ? asciiOnly(JSON.stringify(value)) : undefined) ?? dumpValue(value) ?? "null";

/**
 * Whether `JSON.stringify` renders the value as {@link pyDumps} does, up to the escaping of
 * characters outside printable ASCII (checked on its output): only plain objects and arrays, and
 * numbers that Python writes the same (integers, and floats written without an exponent).
 */
const nativeAgrees = (value: unknown): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return (
        Number.isInteger(value) ||
        (Number.isFinite(value) && Math.abs(value) >= 1e-4 && Math.abs(value) < 1e16)
      );
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const item of value) if (item !== undefined && !nativeAgrees(item)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      const obj = value as Record<string, unknown>;
      for (const key in obj) {
        if (!Object.hasOwn(obj, key)) continue;
        const item = obj[key];
        if (key === "toJSON" || (item !== undefined && !nativeAgrees(item))) return false;
      }
      return true;
    }
    default:
      // `undefined`, functions and symbols are skipped or `null` alike; bigints are not JSON.
      return typeof value !== "bigint";
  }
};

const PRINTABLE_OUTPUT = /^[\x20-\x7e]*$/;
/** The rendering, if all printable ASCII (else characters must be escaped the Python way). */
const asciiOnly = (text: string | undefined): string | undefined =>
  text !== undefined && PRINTABLE_OUTPUT.test(text) ? text : undefined;

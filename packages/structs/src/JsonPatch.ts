/**
 * RFC 6902 JSON patches: the operations, a diff that produces index-precise list operations
 * (`add /metadata/finalizers/2`) as Kopf's python-json-patch `from_diff` does for the changes
 * Kopf makes, JSON-pointer escaping, and applying a patch to a document.
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import jsonpatch from "fast-json-patch";
import { gaps } from "./internal/listAlignment.ts";
import { getOwn } from "./internal/ownKeys.ts";
import { deepCopy, deepEqual, isObject, type JsonValue } from "./Json.ts";

/** One JSON-patch operation. */
export type JsonPatchOp =
  | { readonly op: "add"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "remove"; readonly path: string }
  | { readonly op: "replace"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "move"; readonly from: string; readonly path: string }
  | { readonly op: "copy"; readonly from: string; readonly path: string }
  | { readonly op: "test"; readonly path: string; readonly value: JsonValue };

/** A JSON patch: operations applied in order. */
export type JsonPatch = ReadonlyArray<JsonPatchOp>;

/** Why a JSON patch could not be applied. */
export type JsonPatchErrorReason = "TestFailed" | "PathUnresolvable" | "InvalidOperation";

/** A JSON patch that could not be applied to a document. */
export class JsonPatchError extends Data.TaggedError("JsonPatchError")<{
  readonly reason: JsonPatchErrorReason;
  readonly message: string;
  /** The index of the failing operation, when known. */
  readonly index: number | undefined;
  readonly operation: JsonPatchOp | undefined;
}> {}

/**
 * Escapes one key for use in a JSON pointer: `~` ⇒ `~0`, `/` ⇒ `~1`.
 *
 * @example
 * escapePointer("kopf.zalando.org/x~y") // "kopf.zalando.org~1x~0y"
 */
export const escapePointer = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Un-escapes one key of a JSON pointer (the inverse of `escapePointer`).
 *
 * @example
 * unescapePointer("a~1b~0c") // "a/b~c"
 */
export const unescapePointer = (token: string): string => token.replaceAll("~1", "/").replaceAll("~0", "~");

/**
 * A JSON pointer for a path of keys (`[]` ⇒ `""`, the whole document).
 *
 * @example
 * pointer(["metadata", "finalizers", "2"]) // "/metadata/finalizers/2"
 */
export const pointer = (path: ReadonlyArray<string | number>): string =>
  path.map((key) => "/" + escapePointer(String(key))).join("");

const join = (base: string, key: string | number): string => base + "/" + escapePointer(String(key));

const compareValues = (path: string, a: unknown, b: unknown, out: Array<JsonPatchOp>): void => {
  if (a === b) return;
  // Objects are compared key by key at once (equal ones give nothing): a `deepEqual` first would
  // walk them to their first difference, and then again at every level below.
  if (isObject(a) && isObject(b)) compareObjects(path, a, b, out);
  else if (deepEqual(a, b)) return;
  else if (Array.isArray(a) && Array.isArray(b)) compareLists(path, a, b, out);
  else out.push({ op: "replace", path, value: deepCopy(b) as JsonValue });
};

/** `keys` sorted (in place), as python-json-patch orders each group; most groups have one key or none. */
const sorted = (keys: Array<string>): Array<string> => (keys.length > 1 ? keys.sort() : keys);

// As python-json-patch: removed keys first, then added keys, then changed keys (each sorted).
// The groups are made in one pass over each object's keys, with no key sets: a diff is made for
// every patch, and most objects in it differ in a key or two, or not at all.
const compareObjects = (
  path: string,
  a: { readonly [key: string]: unknown },
  b: { readonly [key: string]: unknown },
  out: Array<JsonPatchOp>,
): void => {
  const removed: Array<string> = [];
  const changed: Array<string> = [];
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === undefined) continue;
    const other = getOwn(b, key);
    if (other === undefined) removed.push(key);
    // A value the two share (a copy of the changed fields alone) is equal: no pointer made for it.
    else if (value !== other) changed.push(key);
  }
  const added: Array<string> = [];
  for (const key of Object.keys(b)) if (b[key] !== undefined && getOwn(a, key) === undefined) added.push(key);
  for (const key of sorted(removed)) out.push({ op: "remove", path: join(path, key) });
  for (const key of sorted(added))
    out.push({ op: "add", path: join(path, key), value: deepCopy(b[key]) as JsonValue });
  for (const key of sorted(changed)) compareValues(join(path, key), a[key], b[key], out);
};

// An index-precise edit script: the items kept by both lists stay, and each gap between them
// is compared position by position (nested objects and lists recursively), then its surplus is
// removed (always at the same index, as later items shift down) or inserted.
const compareLists = (
  path: string,
  a: ReadonlyArray<unknown>,
  b: ReadonlyArray<unknown>,
  out: Array<JsonPatchOp>,
): void => {
  let shift = 0; // how much the indices of `a` have moved in the document being edited
  for (const gap of gaps(a, b)) {
    const at = gap.aStart + shift;
    const paired = Math.min(gap.aLength, gap.bLength);
    for (let i = 0; i < paired; i++) {
      const from = a[gap.aStart + i];
      const to = b[gap.bStart + i];
      if (from !== to) compareValues(join(path, at + i), from, to, out);
    }
    for (let i = paired; i < gap.aLength; i++) out.push({ op: "remove", path: join(path, at + paired) });
    for (let i = paired; i < gap.bLength; i++) {
      out.push({ op: "add", path: join(path, at + i), value: deepCopy(b[gap.bStart + i]) as JsonValue });
    }
    shift += gap.bLength - gap.aLength;
  }
};

/**
 * The operations that turn `from` into `to`: objects compared key by key (removals, then
 * additions, then changes, keys sorted within each group), lists with index-precise `add` /
 * `remove` / `replace` operations around the items both lists keep (a longest common
 * subsequence), anything else replaced whole. Equal documents give `[]`. Unlike
 * python-json-patch, no `move` operations are produced; applying either gives the same document.
 *
 * @example
 * diff({ metadata: { finalizers: ["a", "b"] } }, { metadata: { finalizers: ["a", "b", "fin"] } })
 * // [{ op: "add", path: "/metadata/finalizers/2", value: "fin" }]
 */
export const diff = (from: unknown, to: unknown): JsonPatch => {
  const out: Array<JsonPatchOp> = [];
  compareValues("", from, to, out);
  return out;
};

const classify = (name: unknown): JsonPatchErrorReason => {
  switch (name) {
    case "TEST_OPERATION_FAILED":
      return "TestFailed";
    case "OPERATION_PATH_UNRESOLVABLE":
    case "OPERATION_FROM_UNRESOLVABLE":
    case "OPERATION_PATH_CANNOT_ADD":
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
      return "PathUnresolvable";
    default:
      return "InvalidOperation";
  }
};

const toError = (error: unknown): JsonPatchError => {
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    readonly name?: unknown;
    readonly message?: unknown;
    readonly index?: unknown;
    readonly operation?: unknown;
  };
  const reason = classify(e.name);
  const operation = (isObject(e.operation) ? e.operation : undefined) as JsonPatchOp | undefined;
  const where = operation !== undefined ? ` in ${JSON.stringify(operation)}` : "";
  const text = typeof e.message === "string" ? e.message.split("\n")[0] : String(error);
  const message =
    reason === "TestFailed"
      ? `JSON-patch test failed${where}: the value at ${operation?.path ?? "the path"} differs.`
      : `JSON-patch cannot be applied${where}: ${text}`;
  return new JsonPatchError({
    reason,
    message,
    index: typeof e.index === "number" ? e.index : undefined,
    operation,
  });
};

/**
 * Applies a JSON patch to a copy of `doc` (never mutating it), failing with a clear error on a
 * failed `test` operation, an unresolvable path or a malformed operation. Writes to
 * `__proto__` are refused.
 *
 * @example
 * apply({ a: 1 }, [{ op: "test", path: "/a", value: 1 }, { op: "replace", path: "/a", value: 2 }])
 * // Result.succeed({ a: 2 })
 */
export const apply = <A>(doc: A, ops: JsonPatch): Result.Result<A, JsonPatchError> =>
  Result.try({
    try: () =>
      jsonpatch.applyPatch(deepCopy(doc), deepCopy(ops) as Array<jsonpatch.Operation>, true, true, true)
        .newDocument,
    catch: toError,
  });

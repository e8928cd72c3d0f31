/**
 * The document a JSON patch (`JsonPatch.ts`) is applied to, and the library's pointer steps on it
 * (evanphx/json-patch v4.12.0, as kube-apiserver applies patches): reading, setting, adding and
 * removing at a key or an array index (negative indices count from the end), finding the container
 * of a path's last token, and its error messages with their sentinel causes. The document is
 * copied on write, so the one given is never modified.
 */
import * as Result from "effect/Result";
import { isObject, type JsonObject, putField } from "./Json.ts";

// The library's sentinel errors, which its messages end with.
export const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";
export const TEST_FAILED = "test failed";

type Container = JsonObject | Array<unknown>;
type Found = { readonly con: Container; readonly key: string };

/**
 * The document being patched, copied on write: the containers an operation changes, and those on
 * the way to them, are copied once (and then owned); every other part stays shared with the
 * document given, which is never modified. A stored object patched at one field so costs a copy
 * of that field's ancestors rather than of the whole object, and its untouched parts (its
 * managedFields, say) stay the very values the emulator has cached work for.
 */
export interface Doc {
  doc: Container;
  readonly owned: WeakSet<object>;
}

const shallowCopy = (con: Container): Container => (Array.isArray(con) ? [...con] : { ...con });

/** `con` itself when this patch owns it, else its copy (now owned). */
const own = (root: Doc, con: Container): Container => {
  if (root.owned.has(con)) return con;
  const copy = shallowCopy(con);
  root.owned.add(copy);
  return copy;
};

const unescapeToken = (t: string): string => t.replace(/~1/g, "/").replace(/~0/g, "~");

/** Go's `strconv.Atoi`, with its error text. */
const atoi = (key: string): Result.Result<number, string> => {
  if (!/^[+-]?[0-9]+$/.test(key))
    return Result.fail(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const big = BigInt(key);
  if (big > 9223372036854775807n || big < -9223372036854775808n)
    return Result.fail(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  return Result.succeed(Number(key));
};

const invalidIndex = (idx: number) => Result.fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);

/** A JSON null is no value in the library's documents (Go decodes it to a nil node). */
export const get = (con: Container, key: string): Result.Result<unknown, string> => {
  if (!Array.isArray(con)) return Result.succeed(con[key] === null ? undefined : con[key]);
  const parsed = atoi(key);
  if (Result.isFailure(parsed)) return parsed;
  let idx = parsed.success;
  if (idx < 0) {
    if (idx < -con.length) return invalidIndex(idx);
    idx += con.length;
  }
  if (idx >= con.length) return invalidIndex(idx);
  return Result.succeed(con[idx] === null ? undefined : con[idx]);
};

/** Sets an existing key or index (replace: `get` has checked it). */
export const set = (con: Container, key: string, value: unknown): void => {
  if (!Array.isArray(con)) putField(con, key, value);
  else {
    const idx = Number(key);
    con[idx < 0 ? idx + con.length : idx] = value;
  }
};

/** Adds at a key or index (`-`: the end of an array), as the library does. */
export const add = (con: Container, key: string, value: unknown): Result.Result<void, string> => {
  if (!Array.isArray(con)) {
    putField(con, key, value);
    return Result.succeed(undefined);
  }
  if (key === "-") {
    con.push(value);
    return Result.succeed(undefined);
  }
  const parsed = atoi(key);
  if (Result.isFailure(parsed))
    return Result.fail(`value was not a proper array index: '${key}': ${parsed.failure}`);
  let idx = parsed.success;
  const size = con.length + 1;
  if (idx >= size) return invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) return invalidIndex(idx);
    idx += size;
  }
  con.splice(idx, 0, value);
  return Result.succeed(undefined);
};

/** Removes a key or an index, failing as the library does when it is missing. */
export const remove = (con: Container, key: string): Result.Result<void, string> => {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) return Result.fail(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return Result.succeed(undefined);
  }
  const parsed = atoi(key);
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure);
  let idx = parsed.success;
  if (idx >= con.length) return invalidIndex(idx);
  if (idx < 0) {
    if (idx < -con.length) return invalidIndex(idx);
    idx += con.length;
  }
  con.splice(idx, 1);
  return Result.succeed(undefined);
};

/**
 * The container holding the last token of `path`, and that token (unescaped); undefined when a
 * step on the way is missing, null or no container. As in the library, the part before the first
 * `/` is ignored, and a path without `/` has no container.
 */
export const findObject = (doc: Container, path: string): Found | undefined => find(doc, path, undefined);

/**
 * {@link findObject} for an operation that changes the container found: that container and its
 * ancestors are owned by the patch (copied on the way when shared with the document given).
 */
export const findForWrite = (root: Doc, path: string): Found | undefined => find(root.doc, path, root);

const find = (doc: Container, path: string, writing: Doc | undefined): Found | undefined => {
  const split = path.split("/");
  if (split.length < 2) return undefined;
  // The containers on the way (a write copies them only once the whole path is known to exist:
  // a failing operation copies nothing).
  const keys = split.slice(1, -1).map(unescapeToken);
  const way: Array<Container> = [];
  let con: Container = doc;
  for (const key of keys) {
    const next = get(con, key);
    if (Result.isFailure(next)) return undefined;
    if (!Array.isArray(next.success) && !isObject(next.success)) return undefined;
    con = next.success;
    if (writing !== undefined) way.push(con);
  }
  if (writing !== undefined) {
    con = writing.doc = own(writing, doc);
    for (let i = 0; i < keys.length; i++) {
      const shared = way[i] as Container;
      const owned = own(writing, shared);
      if (owned !== shared) set(con, keys[i] as string, owned);
      con = owned;
    }
  }
  return { con, key: unescapeToken(split[split.length - 1] as string) };
};

/**
 * JSON patch (RFC 6902) with the semantics and error messages of the evanphx/json-patch v4.12.0
 * library kube-apiserver applies it with (to PATCH requests and to mutating webhooks' answers):
 * `replace` of a missing object key sets it, `test` of a missing key passes only for `null`,
 * `copy` of a missing key copies `null`, negative array indices count from the end, and each
 * message ends with the library's cause (`: missing value`, `: invalid index referenced`,
 * `: test failed`). Any failed operation fails the whole patch.
 */
import * as Result from "effect/Result";
import { clone, deepEqual, goType, isObject, type JsonObject, putField } from "./internal/Json.ts";

/**
 * One operation as decoded: `op` is "unknown" when it is not a string (as the library reads it);
 * `path`, `from` and `value` are as given (absent when not given), checked when applied.
 */
export interface Operation {
  readonly op: string;
  readonly path?: unknown;
  readonly value?: unknown;
  readonly from?: unknown;
}

/** An operation from its JSON object (JSON nulls count as not given, as Go decodes them). */
export const operationOf = (o: JsonObject): Operation => ({
  op: typeof o.op === "string" ? o.op : "unknown",
  ...(o.path === undefined || o.path === null ? {} : { path: o.path }),
  ...(Object.hasOwn(o, "value") ? { value: o.value } : {}),
  ...(o.from === undefined || o.from === null ? {} : { from: o.from }),
});

/** Checks the shape of a decoded patch document; the message is the apiserver's 400. */
export const decodeOperations = (value: unknown): Result.Result<ReadonlyArray<Operation>, string> => {
  if (!Array.isArray(value))
    return Result.fail(
      `error decoding patch: json: cannot unmarshal ${goType(value)} into Go value of type []handlers.jsonPatchOp`,
    );
  const ops: Array<Operation> = [];
  for (const item of value) {
    if (item !== null && !isObject(item))
      return Result.fail(
        `error decoding patch: json: cannot unmarshal ${goType(item)} into Go value of type handlers.jsonPatchOp`,
      );
    ops.push(operationOf(item ?? {}));
  }
  return Result.succeed(ops);
};

// The library's sentinel errors, which its messages end with.
const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";
const TEST_FAILED = "test failed";

type Container = JsonObject | Array<unknown>;
type Found = { readonly con: Container; readonly key: string };

/**
 * The document being patched, copied on write: the containers an operation changes, and those on
 * the way to them, are copied once (and then owned); every other part stays shared with the
 * document given, which is never modified. A stored object patched at one field so costs a copy
 * of that field's ancestors rather than of the whole object, and its untouched parts (its
 * managedFields, say) stay the very values the emulator has cached work for.
 */
interface Doc {
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
const get = (con: Container, key: string): Result.Result<unknown, string> => {
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
const set = (con: Container, key: string, value: unknown): void => {
  if (!Array.isArray(con)) putField(con, key, value);
  else {
    const idx = Number(key);
    con[idx < 0 ? idx + con.length : idx] = value;
  }
};

const add = (con: Container, key: string, value: unknown): Result.Result<void, string> => {
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

const remove = (con: Container, key: string): Result.Result<void, string> => {
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
const findObject = (doc: Container, path: string): Found | undefined => find(doc, path, undefined);

/**
 * {@link findObject} for an operation that changes the container found: that container and its
 * ancestors are owned by the patch (copied on the way when shared with the document given).
 */
const findForWrite = (root: Doc, path: string): Found | undefined => find(root.doc, path, root);

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

/** The operation's path (or from), or the library's error for it. */
const field = (op: Operation, name: "path" | "from"): Result.Result<string, string> => {
  const value = op[name];
  if (value === undefined)
    return Result.fail(
      name === "path"
        ? `operation missing path field: ${MISSING}`
        : `operation, missing from field: ${MISSING}`,
    );
  return typeof value === "string"
    ? Result.succeed(value)
    : Result.fail(`json: cannot unmarshal ${goType(value)} into Go value of type string`);
};

/** The operation's value; an operation without one adds or sets null. */
const operandOf = (op: Operation): unknown => (op.value === undefined ? null : clone(op.value));

const addOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`add operation failed to decode path: ${MISSING}`);
  const t = findForWrite(root, path.success);
  if (t === undefined)
    return Result.fail(`add operation does not apply: doc is missing path: "${path.success}": ${MISSING}`);
  const added = add(t.con, t.key, operandOf(op));
  return Result.isFailure(added)
    ? Result.fail(`error in add for path: '${path.success}': ${added.failure}`)
    : added;
};

const removeOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`remove operation failed to decode path: ${MISSING}`);
  const t = findForWrite(root, path.success);
  if (t === undefined)
    return Result.fail(`remove operation does not apply: doc is missing path: "${path.success}": ${MISSING}`);
  const removed = remove(t.con, t.key);
  return Result.isFailure(removed)
    ? Result.fail(`error in remove for path: '${path.success}': ${removed.failure}`)
    : removed;
};

const replaceOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`replace operation failed to decode path: ${path.failure}`);
  if (path.success === "") {
    // The whole document; a value that is neither object nor array fails since json-patch
    // v4.13.0 (Kubernetes v1.36), with a wrapped nil error in the text; v4.12.0 ignored it.
    const value = operandOf(op);
    if (!isObject(value) && !Array.isArray(value))
      return Result.fail("replace operation value must be object or array: %!w(<nil>)");
    root.doc = value;
    root.owned.add(value);
    return Result.succeed(undefined);
  }
  const t = findForWrite(root, path.success);
  if (t === undefined)
    return Result.fail(`replace operation does not apply: doc is missing path: ${path.success}: ${MISSING}`);
  if (Result.isFailure(get(t.con, t.key)))
    return Result.fail(`replace operation does not apply: doc is missing key: ${path.success}: ${MISSING}`);
  set(t.con, t.key, operandOf(op));
  return Result.succeed(undefined);
};

const moveOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const from = field(op, "from");
  if (Result.isFailure(from)) return Result.fail(`move operation failed to decode from: ${from.failure}`);
  const f = findForWrite(root, from.success);
  if (f === undefined)
    return Result.fail(
      `move operation does not apply: doc is missing from path: ${from.success}: ${MISSING}`,
    );
  const value = get(f.con, f.key);
  if (Result.isFailure(value)) return Result.fail(`error in move for path: '${f.key}': ${value.failure}`);
  const removed = remove(f.con, f.key);
  if (Result.isFailure(removed)) return Result.fail(`error in move for path: '${f.key}': ${removed.failure}`);
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`move operation failed to decode path: ${path.failure}`);
  const t = findForWrite(root, path.success);
  if (t === undefined)
    return Result.fail(
      `move operation does not apply: doc is missing destination path: ${path.success}: ${MISSING}`,
    );
  const added = add(t.con, t.key, value.success ?? null);
  return Result.isFailure(added)
    ? Result.fail(`error in move for path: '${path.success}': ${added.failure}`)
    : added;
};

const copyOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const from = field(op, "from");
  if (Result.isFailure(from)) return Result.fail(`copy operation failed to decode from: ${from.failure}`);
  const f = findObject(root.doc, from.success);
  if (f === undefined)
    return Result.fail(
      `copy operation does not apply: doc is missing from path: ${from.success}: ${MISSING}`,
    );
  const value = get(f.con, f.key);
  if (Result.isFailure(value))
    return Result.fail(`error in copy for from: '${from.success}': ${value.failure}`);
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`copy operation failed to decode path: ${MISSING}`);
  const t = findForWrite(root, path.success);
  if (t === undefined)
    return Result.fail(
      `copy operation does not apply: doc is missing destination path: ${path.success}: ${MISSING}`,
    );
  // A missing source key copies as null.
  const added = add(t.con, t.key, value.success === undefined ? null : clone(value.success));
  return Result.isFailure(added)
    ? Result.fail(`error while adding value during copy: ${added.failure}`)
    : added;
};

const testOp = (root: Doc, op: Operation): Result.Result<void, string> => {
  const path = field(op, "path");
  if (Result.isFailure(path)) return Result.fail(`test operation failed to decode path: ${path.failure}`);
  const failed = Result.fail(`testing value ${path.success} failed: ${TEST_FAILED}`);
  if (path.success === "") return deepEqual(root.doc, op.value) ? Result.succeed(undefined) : failed;
  const t = findObject(root.doc, path.success);
  if (t === undefined)
    return Result.fail(`test operation does not apply: is missing path: ${path.success}: ${MISSING}`);
  const value = get(t.con, t.key);
  if (Result.isFailure(value))
    return Result.fail(`error in test for path: '${path.success}': ${value.failure}`);
  if (value.success === undefined)
    return op.value === undefined || op.value === null ? Result.succeed(undefined) : failed;
  return op.value !== undefined && deepEqual(value.success, op.value) ? Result.succeed(undefined) : failed;
};

const OPERATIONS: Readonly<Record<string, (root: Doc, op: Operation) => Result.Result<void, string>>> = {
  add: addOp,
  remove: removeOp,
  replace: replaceOp,
  move: moveOp,
  copy: copyOp,
  test: testOp,
};

/**
 * Applies operations in order to `doc` (an object or array), which is not modified: the result
 * shares the parts no operation touched with it (see {@link Doc}). The first failing operation
 * stops the patch with the library's message (as kube-apiserver reports a webhook's failing patch).
 *
 * @example
 * apply({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]) // Result.fail("testing value /a failed: test failed")
 * apply({}, [{ op: "remove", path: "/x" }]) // Result.fail("error in remove for path: '/x': Unable to remove nonexistent key: x: missing value")
 */
export const apply = (doc: unknown, ops: ReadonlyArray<Operation>): Result.Result<unknown, string> => {
  if (!isObject(doc) && !Array.isArray(doc)) return Result.fail("the document is not a JSON object or array");
  const root: Doc = { doc, owned: new WeakSet() };
  for (const op of ops) {
    const run = Object.hasOwn(OPERATIONS, op.op) ? OPERATIONS[op.op] : undefined;
    const r = run === undefined ? Result.fail(`Unexpected kind: ${op.op}`) : run(root, op);
    if (Result.isFailure(r)) return Result.fail(r.failure);
  }
  return Result.succeed(root.doc);
};

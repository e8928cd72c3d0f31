/**
 * JSON patch (RFC 6902) with the semantics and error messages of the evanphx/json-patch v4.12.0
 * library kube-apiserver applies it with (to PATCH requests and to mutating webhooks' answers):
 * `replace` of a missing object key sets it, `test` of a missing key passes only for `null`,
 * `copy` of a missing key copies `null`, negative array indices count from the end, and each
 * message ends with the library's cause (`: missing value`, `: invalid index referenced`,
 * `: test failed`). Any failed operation fails the whole patch. The document and its pointer steps
 * are `internal/patchDocument.ts`.
 */
import * as Result from "effect/Result";
import { clone, deepEqual, goType, isObject, type JsonObject } from "./internal/Json.ts";
import {
  add,
  type Doc,
  findForWrite,
  findObject,
  get,
  MISSING,
  remove,
  set,
  TEST_FAILED,
} from "./internal/patchDocument.ts";

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

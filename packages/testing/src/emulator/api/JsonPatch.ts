/**
 * JSON patch (RFC 6902) with the semantics of the evanphx/json-patch v4 library the apiserver
 * applies it with (e.g. `replace` of a missing object key sets it, `test` of a missing key passes
 * only for `null`); any failed operation fails the whole patch.
 */
import { Result } from "effect";
import { deepEqual, isObject, type JsonObject } from "./internal/Json.ts";

export interface Operation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

const goType = (v: unknown): string =>
  Array.isArray(v)
    ? "array"
    : v === null
      ? "null"
      : typeof v === "object"
        ? "object"
        : typeof v === "boolean"
          ? "bool"
          : typeof v;

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
    const o = item ?? {};
    ops.push({
      op: typeof o.op === "string" ? o.op : "",
      path: typeof o.path === "string" ? o.path : "",
      ...(Object.hasOwn(o, "value") ? { value: o.value } : {}),
      ...(typeof o.from === "string" ? { from: o.from } : {}),
    });
  }
  return Result.succeed(ops);
};

const unescapeToken = (t: string): string => t.replace(/~1/g, "/").replace(/~0/g, "~");

type Container = JsonObject | Array<unknown>;

const index = (key: string): number | undefined => (/^-?[0-9]+$/.test(key) ? Number(key) : undefined);

/** The container holding the last token of `path` (deep-copied on the way) and that token. */
const findObject = (
  root: { doc: unknown },
  path: string,
): { readonly con: Container; readonly key: string } | undefined => {
  const split = path.split("/");
  if (split.length < 2) return undefined;
  const parts = split.slice(1, -1).map(unescapeToken);
  const key = unescapeToken(split[split.length - 1] as string);
  const copy = (v: unknown): unknown => (Array.isArray(v) ? [...v] : isObject(v) ? { ...v } : v);
  root.doc = copy(root.doc);
  let cur = root.doc;
  for (const part of parts) {
    let next: unknown;
    if (Array.isArray(cur)) {
      const i = index(part);
      if (i === undefined || i < 0 || i >= cur.length) return undefined;
      next = copy(cur[i]);
      cur[i] = next;
    } else if (isObject(cur)) {
      if (cur[part] === undefined || cur[part] === null) return undefined;
      next = copy(cur[part]);
      cur[part] = next;
    } else return undefined;
    if (!Array.isArray(next) && !isObject(next)) return undefined;
    cur = next;
  }
  return Array.isArray(cur) || isObject(cur) ? { con: cur, key } : undefined;
};

const get = (con: Container, key: string): Result.Result<unknown, string> => {
  if (!Array.isArray(con)) return Result.succeed(con[key]);
  const i = index(key);
  if (i === undefined || i < 0 || i >= con.length)
    return Result.fail(`Unable to access invalid index: ${key}`);
  return Result.succeed(con[i]);
};

const add = (con: Container, key: string, value: unknown): Result.Result<void, string> => {
  if (!Array.isArray(con)) {
    con[key] = value;
    return Result.succeed(undefined);
  }
  if (key === "-") {
    con.push(value);
    return Result.succeed(undefined);
  }
  const i = index(key);
  if (i === undefined || i < 0 || i > con.length)
    return Result.fail(`Unable to access invalid index: ${key}`);
  con.splice(i, 0, value);
  return Result.succeed(undefined);
};

const remove = (con: Container, key: string): Result.Result<void, string> => {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) return Result.fail(`Unable to remove nonexistent key: ${key}`);
    delete con[key];
    return Result.succeed(undefined);
  }
  const i = index(key);
  if (i === undefined || i < 0 || i >= con.length)
    return Result.fail(`Unable to access invalid index: ${key}`);
  con.splice(i, 1);
  return Result.succeed(undefined);
};

const applyOne = (root: { doc: unknown }, op: Operation): Result.Result<void, string> => {
  const value = op.value === undefined ? null : structuredClone(op.value);
  switch (op.op) {
    case "add": {
      const t = findObject(root, op.path);
      return t === undefined
        ? Result.fail(`add operation does not apply: doc is missing path: "${op.path}"`)
        : add(t.con, t.key, value);
    }
    case "remove": {
      const t = findObject(root, op.path);
      return t === undefined
        ? Result.fail(`remove operation does not apply: doc is missing path: "${op.path}"`)
        : remove(t.con, t.key);
    }
    case "replace": {
      if (op.path === "") {
        if (!isObject(value) && !Array.isArray(value))
          return Result.fail("replace operation value must be object or array");
        root.doc = value;
        return Result.succeed(undefined);
      }
      const t = findObject(root, op.path);
      if (t === undefined)
        return Result.fail(`replace operation does not apply: doc is missing path: ${op.path}`);
      const current = get(t.con, t.key);
      if (Result.isFailure(current))
        return Result.fail(`replace operation does not apply: doc is missing key: ${op.path}`);
      if (Array.isArray(t.con)) t.con[index(t.key) as number] = value;
      else t.con[t.key] = value;
      return Result.succeed(undefined);
    }
    case "move":
    case "copy": {
      const f = findObject(root, op.from ?? "");
      if (f === undefined)
        return Result.fail(`${op.op} operation does not apply: doc is missing from path: ${op.from ?? ""}`);
      const v = get(f.con, f.key);
      if (Result.isFailure(v)) return Result.fail(v.failure);
      if (op.op === "copy" && v.success === undefined)
        return Result.fail(`copy operation does not apply: doc is missing from path: ${op.from ?? ""}`);
      if (op.op === "move") {
        const removed = remove(f.con, f.key);
        if (Result.isFailure(removed)) return removed;
      }
      const t = findObject(root, op.path);
      if (t === undefined)
        return Result.fail(`${op.op} operation does not apply: doc is missing destination path: ${op.path}`);
      return add(t.con, t.key, structuredClone(v.success));
    }
    case "test": {
      if (op.path === "")
        return deepEqual(root.doc, op.value)
          ? Result.succeed(undefined)
          : Result.fail("testing value  failed: test failed");
      const t = findObject(root, op.path);
      if (t === undefined) return Result.fail(`test operation does not apply: is missing path: ${op.path}`);
      const v = get(t.con, t.key);
      if (Result.isFailure(v)) return Result.fail(v.failure);
      if (v.success === undefined || v.success === null)
        return op.value === undefined || op.value === null
          ? Result.succeed(undefined)
          : Result.fail(`testing value ${op.path} failed: test failed`);
      return deepEqual(v.success, op.value)
        ? Result.succeed(undefined)
        : Result.fail(`testing value ${op.path} failed: test failed`);
    }
    default:
      return Result.fail(`Unexpected kind: ${op.op}`);
  }
};

/**
 * Applies operations in order; the first failing one stops the patch with its message.
 *
 * @example
 * apply({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]) // Result.fail("testing value /a failed: test failed")
 */
export const apply = (doc: unknown, ops: ReadonlyArray<Operation>): Result.Result<unknown, string> => {
  const root = { doc };
  for (const op of ops) {
    const r = applyOne(root, op);
    if (Result.isFailure(r)) return Result.fail(r.failure);
  }
  return Result.succeed(root.doc);
};

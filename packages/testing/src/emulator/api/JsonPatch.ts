/**
 * JSON patch (RFC 6902) with the error texts of the evanphx/json-patch library the apiserver uses,
 * so failed operations (a failed `test`, a missing path) read as a real server answers them.
 */
import { Result } from "effect";
import { deepEqual, isObject, type JsonObject } from "./internal/Json.ts";

export interface Operation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

/** Checks the shape of a decoded patch document; the message is a 400's. */
export const decodeOperations = (value: unknown): Result.Result<ReadonlyArray<Operation>, string> => {
  if (!Array.isArray(value))
    return Result.fail("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  const ops: Array<Operation> = [];
  for (const item of value) {
    if (!isObject(item))
      return Result.fail("json: cannot unmarshal into Go value of type jsonpatch.Operation");
    const op = typeof item.op === "string" ? item.op : "";
    const path = typeof item.path === "string" ? item.path : undefined;
    if (!["add", "remove", "replace", "move", "copy", "test"].includes(op))
      return Result.fail(`Unexpected kind: ${op === "" ? "unknown" : op}`);
    if (path === undefined) return Result.fail(`${op} operation missing path`);
    if ((op === "add" || op === "replace" || op === "test") && !Object.hasOwn(item, "value"))
      return Result.fail(`${op} operation missing value`);
    if ((op === "move" || op === "copy") && typeof item.from !== "string")
      return Result.fail(`${op} operation missing from`);
    ops.push({
      op,
      path,
      ...(Object.hasOwn(item, "value") ? { value: item.value } : {}),
      ...(typeof item.from === "string" ? { from: item.from } : {}),
    });
  }
  return Result.succeed(ops);
};

const tokens = (pointer: string): Array<string> | undefined => {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
};

type Container = JsonObject | Array<unknown>;

/** Deep-copies the path down to the parent of the last token, returning the new root and parent. */
const walk = (
  root: unknown,
  toks: ReadonlyArray<string>,
): { readonly root: unknown; readonly parent: Container | undefined } => {
  const copyOf = (v: unknown): unknown => (Array.isArray(v) ? [...v] : isObject(v) ? { ...v } : v);
  const newRoot = copyOf(root);
  let cur: unknown = newRoot;
  for (let i = 0; i < toks.length - 1; i++) {
    const t = toks[i] as string;
    if (Array.isArray(cur)) {
      const idx = Number(t);
      if (!/^(0|[1-9][0-9]*)$/.test(t) || idx >= cur.length) return { root: newRoot, parent: undefined };
      cur[idx] = copyOf(cur[idx]);
      cur = cur[idx];
    } else if (isObject(cur)) {
      if (!Object.hasOwn(cur, t)) return { root: newRoot, parent: undefined };
      cur[t] = copyOf(cur[t]);
      cur = cur[t];
    } else return { root: newRoot, parent: undefined };
  }
  return { root: newRoot, parent: Array.isArray(cur) || isObject(cur) ? cur : undefined };
};

const get = (doc: unknown, toks: ReadonlyArray<string>): { found: boolean; value: unknown } => {
  let cur = doc;
  for (const t of toks) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t) || Number(t) >= cur.length) return { found: false, value: undefined };
      cur = cur[Number(t)];
    } else if (isObject(cur)) {
      if (!Object.hasOwn(cur, t)) return { found: false, value: undefined };
      cur = cur[t];
    } else return { found: false, value: undefined };
  }
  return { found: true, value: cur };
};

const add = (doc: unknown, path: string, value: unknown): Result.Result<unknown, string> => {
  const toks = tokens(path);
  if (toks === undefined)
    return Result.fail(`add operation does not apply: doc is missing path: "${path}": missing value`);
  if (toks.length === 0) return Result.succeed(value);
  const { root, parent } = walk(doc, toks);
  const last = toks[toks.length - 1] as string;
  if (parent === undefined)
    return Result.fail(`add operation does not apply: doc is missing path: "${path}": missing value`);
  if (Array.isArray(parent)) {
    const idx = last === "-" ? parent.length : Number(last);
    if (!(last === "-" || /^(0|[1-9][0-9]*)$/.test(last)) || idx > parent.length)
      return Result.fail(`add operation does not apply: doc is missing path: "${path}": missing value`);
    parent.splice(idx, 0, value);
  } else parent[last] = value;
  return Result.succeed(root);
};

const remove = (doc: unknown, path: string, op: string): Result.Result<unknown, string> => {
  const toks = tokens(path);
  const missing = `${op} operation does not apply: doc is missing path: "${path}": missing value`;
  if (toks === undefined || toks.length === 0) return Result.fail(missing);
  const { root, parent } = walk(doc, toks);
  const last = toks[toks.length - 1] as string;
  if (parent === undefined) return Result.fail(missing);
  if (Array.isArray(parent)) {
    const idx = Number(last);
    if (!/^(0|[1-9][0-9]*)$/.test(last) || idx >= parent.length)
      return Result.fail(`Unable to access invalid index: ${last}: invalid index referenced`);
    parent.splice(idx, 1);
  } else {
    if (!Object.hasOwn(parent, last))
      return Result.fail(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
    delete parent[last];
  }
  return Result.succeed(root);
};

const applyOne = (doc: unknown, op: Operation): Result.Result<unknown, string> => {
  switch (op.op) {
    case "add":
      return add(doc, op.path, op.value);
    case "remove":
      return remove(doc, op.path, "remove");
    case "replace": {
      const toks = tokens(op.path);
      if (toks !== undefined && toks.length === 0) return Result.succeed(op.value);
      if (toks === undefined || !get(doc, toks).found)
        return Result.fail(`replace operation does not apply: doc is missing key: ${op.path}: missing value`);
      const removed = remove(doc, op.path, "replace");
      return Result.isFailure(removed) ? removed : add(removed.success, op.path, op.value);
    }
    case "move":
    case "copy": {
      const fromToks = tokens(op.from ?? "");
      const src = fromToks === undefined ? { found: false, value: undefined } : get(doc, fromToks);
      if (!src.found)
        return Result.fail(
          `${op.op} operation does not apply: doc is missing from path: ${op.from ?? ""}: missing value`,
        );
      const base = op.op === "move" ? remove(doc, op.from ?? "", "move") : Result.succeed(doc);
      return Result.isFailure(base) ? base : add(base.success, op.path, structuredClone(src.value));
    }
    case "test": {
      const toks = tokens(op.path);
      const cur = toks === undefined ? { found: false, value: undefined } : get(doc, toks);
      const ok = cur.found ? deepEqual(cur.value, op.value) : op.value === null;
      return ok ? Result.succeed(doc) : Result.fail(`testing value ${op.path} failed: test failed`);
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
  let cur = doc;
  for (const op of ops) {
    const r = applyOne(cur, op);
    if (Result.isFailure(r)) return r;
    cur = r.success;
  }
  return Result.succeed(cur);
};

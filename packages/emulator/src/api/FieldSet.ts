/**
 * Field sets of server-side apply: the paths an object (or an applied configuration) sets, with
 * list items addressed by merge keys (`k:{"name":"a"}`) or values (`v:"x"`), their `FieldsV1`
 * encoding in managedFields, and value lookup by path. What is a list, a map or atomic comes from
 * the type's {@link Shape} (TypeShape.ts).
 */
import { deepEqual, isObject, type JsonObject } from "./internal/Json.ts";
import type { Shape } from "./TypeShape.ts";

/** A path: elements such as `f:spec`, `k:{"name":"a"}`, `v:"x"`, joined by newlines. */
export type FieldSet = Set<string>;

/** The separator of a path's elements. */
export const SEP = "\n";

/** Fields the server owns or that identify the object: never part of a field set. */
const IGNORED_ROOT = new Set(["apiVersion", "kind"]);
const IGNORED_META = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "selfLink",
  "managedFields",
]);

const keyElement = (item: unknown, keys: ReadonlyArray<string>): string | undefined => {
  if (!isObject(item)) return undefined;
  const k: JsonObject = {};
  for (const key of [...keys].sort()) {
    if (item[key] === undefined) return undefined;
    k[key] = item[key];
  }
  return `k:${JSON.stringify(k)}`;
};

export type Mode = "update" | "apply";

/** Whether a field is never part of a field set (`names` leads to the object holding it). */
export const isIgnored = (names: ReadonlyArray<string>, key: string): boolean =>
  (names.length === 0 && IGNORED_ROOT.has(key)) ||
  (names.length === 1 && names[0] === "metadata" && IGNORED_META.has(key));

/** Whether a field's value is an object whose fields are walked one by one (not a leaf or atomic). */
export const isWalkedObject = (
  value: unknown,
  names: ReadonlyArray<string>,
  shape: Shape,
): value is JsonObject => isObject(value) && !isEmpty(value) && !shape.isAtomic(names);

/** Walks `value` adding its paths under `prefix` (the path so far, "" at the root). */
const walk = (
  value: unknown,
  prefix: string,
  names: ReadonlyArray<string>,
  shape: Shape,
  mode: Mode,
  out: FieldSet,
  inItem = false,
): void => {
  if (!isObject(value)) return;
  for (const k in value) {
    if (!Object.hasOwn(value, k) || isIgnored(names, k)) continue;
    walkField(k, value[k], prefix, names, shape, mode, out, inItem);
  }
};

/**
 * Adds the paths of field `k` (value `v`) of the object at `prefix` (reached by `names`): the
 * field itself when it is a leaf or a node of its own, and everything below it.
 */
export const walkField = (
  k: string,
  v: unknown,
  prefix: string,
  names: ReadonlyArray<string>,
  shape: Shape,
  mode: Mode,
  out: FieldSet,
  inItem: boolean,
): void => {
  const childNames = [...names, k];
  const key = prefix === "" ? `f:${k}` : `${prefix}${SEP}f:${k}`;
  if (Array.isArray(v)) {
    const list = shape.list(childNames);
    if (list.kind === "atomic" || v.length === 0) {
      out.add(key);
      return;
    }
    if (mode === "update" && shape.isMember(childNames, inItem)) out.add(key);
    if (list.kind === "set") for (const item of v) out.add(`${key}${SEP}v:${JSON.stringify(item)}`);
    else
      for (const item of v) {
        const el = keyElement(item, list.keys);
        if (el === undefined) {
          out.add(key);
          break;
        }
        const itemKey = `${key}${SEP}${el}`;
        out.add(itemKey);
        // Owner references are owned as whole items (a bare `k:{"uid":…}`), as the apiserver records them.
        if (names.length !== 1 || names[0] !== "metadata" || k !== "ownerReferences")
          walk(item, itemKey, childNames, shape, mode, out, true);
      }
  } else if (isWalkedObject(v, childNames, shape)) {
    if (mode === "update" && shape.isMember(childNames, inItem)) out.add(key);
    walk(v, key, childNames, shape, mode, out, inItem);
  } else if (isObject(v) && !shape.isAtomic(childNames) && !shape.isMember(childNames, inItem)) {
    // An empty struct that is not a node of its own (a Lease's `spec: {}`) owns nothing.
  } else out.add(key);
};

const isEmpty = (obj: JsonObject): boolean => {
  for (const k in obj) if (Object.hasOwn(obj, k)) return false;
  return true;
};

/**
 * The field set of an object (`update`: what a write owns, nodes it adds included) or of an
 * applied configuration (`apply`: leaves and list items only).
 */
export const of = (value: unknown, shape: Shape, mode: Mode = "update"): FieldSet => {
  const out: FieldSet = new Set();
  walk(value, "", [], shape, mode, out);
  return out;
};

/** The paths of a set that have members below them. */
export const parentsOf = (set: ReadonlySet<string>): Set<string> => {
  const out = new Set<string>();
  for (const p of set) {
    let i = p.lastIndexOf(SEP);
    while (i > 0) {
      const prefix = p.slice(0, i);
      if (out.has(prefix)) break;
      out.add(prefix);
      i = prefix.lastIndexOf(SEP);
    }
  }
  return out;
};

/** The value at a path (`found` false when absent). */
export const lookup = (
  value: unknown,
  path: string,
): { readonly found: boolean; readonly value: unknown } => {
  let cur = value;
  for (const el of path.split(SEP)) {
    if (el.startsWith("f:")) {
      if (!isObject(cur) || !Object.hasOwn(cur, el.slice(2))) return { found: false, value: undefined };
      cur = cur[el.slice(2)];
    } else if (el.startsWith("k:")) {
      const key = JSON.parse(el.slice(2)) as JsonObject;
      const item = Array.isArray(cur)
        ? cur.find((i) => isObject(i) && Object.entries(key).every(([kk, kv]) => deepEqual(i[kk], kv)))
        : undefined;
      if (item === undefined) return { found: false, value: undefined };
      cur = item;
    } else if (el.startsWith("v:")) {
      const v = JSON.parse(el.slice(2)) as unknown;
      if (!Array.isArray(cur) || !cur.some((i) => deepEqual(i, v))) return { found: false, value: undefined };
      cur = v;
    } else return { found: false, value: undefined };
  }
  return { found: true, value: cur };
};

/** Renders a path as apply conflicts name it: `.spec.containers[name="a"].image`. */
export const render = (path: string): string =>
  path
    .split(SEP)
    .map((el) => {
      if (el.startsWith("f:")) return `.${el.slice(2)}`;
      if (el.startsWith("k:"))
        return `[${Object.entries(JSON.parse(el.slice(2)) as JsonObject)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(",")}]`;
      return `[=${el.slice(2)}]`;
    })
    .join("");

const encoded = new WeakMap<FieldSet, JsonObject>();

/**
 * Field sets by the `FieldsV1` they were decoded from: a stored object's managedFields come back on
 * every write to it, and decoding them again would make new sets (and miss the encoding cache).
 */
const decodedSets = new WeakMap<JsonObject, FieldSet>();

/**
 * Encodes a field set as `FieldsV1` (cached per set: managedFields entries keep their sets from
 * write to write, and neither sets nor stored objects are mutated once made).
 */
export const toFieldsV1 = (set: FieldSet): JsonObject => {
  const hit = encoded.get(set);
  if (hit !== undefined) return hit;
  const result = encodeFieldsV1(set);
  encoded.set(set, result);
  return result;
};

/**
 * Builds `FieldsV1` from the sorted paths straight into the objects written (each element's key
 * is prefixed, `f:`, `k:`, `v:` or `i:`, so objects keep the keys in the order they are added):
 * a path that is a member and has children gets `.` before its first child.
 */
const encodeFieldsV1 = (set: FieldSet): JsonObject => {
  const root: JsonObject = {};
  const members = new Set<JsonObject>();
  for (const path of [...set].sort()) {
    let node = root;
    let start = 0;
    while (true) {
      const end = path.indexOf(SEP, start);
      const element = end === -1 ? path.slice(start) : path.slice(start, end);
      let child = Object.hasOwn(node, element) ? (node[element] as JsonObject) : undefined;
      if (child === undefined) {
        if (members.has(node) && !Object.hasOwn(node, ".")) node["."] = {};
        child = {};
        node[element] = child;
      }
      node = child;
      if (end === -1) break;
      start = end + SEP.length;
    }
    members.add(node);
  }
  return root;
};

/** Decodes `FieldsV1` into a field set (malformed parts are skipped). */
export const fromFieldsV1 = (fields: unknown): FieldSet => {
  const hit = isObject(fields) ? decodedSets.get(fields) : undefined;
  if (hit !== undefined) return hit;
  const out: FieldSet = new Set();
  const visit = (node: unknown, path: string) => {
    if (!isObject(node)) return;
    const keys = Object.keys(node);
    if (path !== "" && (keys.length === 0 || Object.hasOwn(node, "."))) out.add(path);
    for (const k of keys) if (k !== ".") visit(node[k], path === "" ? k : `${path}${SEP}${k}`);
  };
  visit(fields, "");
  if (isObject(fields)) {
    decodedSets.set(fields, out);
    // The set encodes back to the very object it came from when that is already in our encoding
    // (as every stored one is), so an entry that keeps its set keeps its FieldsV1 object, and the
    // next write finds it decoded.
    const encoding = encodeFieldsV1(out);
    encoded.set(out, JSON.stringify(encoding) === JSON.stringify(fields) ? fields : encoding);
  }
  return out;
};

/**
 * Key order of served objects as the apiserver writes them: built-in types in Go struct order
 * (`kind`, `apiVersion`, `metadata` in ObjectMeta's field order, then the rest) with their Go maps
 * sorted (labels, annotations, a ConfigMap's or Secret's data), custom resources as Go maps (every
 * object's keys sorted). Webhooks get objects in this order too.
 */
import { isObject, type JsonObject, putField } from "./internal/Json.ts";

/** ObjectMeta's fields in Go struct order. */
export const OBJECT_META_FIELDS: ReadonlyArray<string> = [
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
];

const ordered = (obj: JsonObject, first: ReadonlyArray<string>): JsonObject => {
  const out: JsonObject = {};
  for (const k of first) if (Object.hasOwn(obj, k)) out[k] = obj[k];
  for (const k of Object.keys(obj)) if (!Object.hasOwn(out, k)) out[k] = obj[k];
  return out;
};

/**
 * The value with every object's keys sorted. Parts already in order are returned as they are, not
 * copied (objects are never mutated once stored), so a stored object shares what did not change
 * with its previous version, and the caches keyed by those parts (managedFields decoding, FieldsV1
 * encoding) keep hitting. `previous` is the same place in an already sorted value (the previous
 * version of a stored object): a part that is that very object is known sorted and not walked.
 */
const sortedDeep = (value: unknown, previous: unknown): unknown => {
  if (typeof value !== "object" || value === null || value === previous) return value;
  if (Array.isArray(value)) {
    const before = Array.isArray(previous) ? previous : undefined;
    let copy: Array<unknown> | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const sorted = sortedDeep(item, before?.[i]);
      if (copy === undefined && sorted !== item) copy = value.slice(0, i);
      copy?.push(sorted);
    }
    return copy ?? value;
  }
  const obj = value as JsonObject;
  const before = isObject(previous) ? previous : undefined;
  const keys = Object.keys(obj);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = (keys[i - 1] as string) < (keys[i] as string);
  // Out of order: a copy in sorted order, built as the fields are sorted. In order: the object
  // itself, unless a field changes (then a copy from that field on).
  if (!inOrder) keys.sort();
  let out: JsonObject | undefined = inOrder ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const field = obj[key];
    const sorted = sortedDeep(
      field,
      before !== undefined && Object.hasOwn(before, key) ? before[key] : undefined,
    );
    if (out === undefined && sorted !== field) {
      out = {};
      for (let j = 0; j < i; j++) putField(out, keys[j] as string, obj[keys[j] as string]);
    }
    if (out !== undefined) putField(out, key, sorted);
  }
  return out ?? value;
};

/** A Go map's keys, sorted (one level: its values are strings). */
const sortedMap = (map: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const k of Object.keys(map).sort()) out[k] = map[k];
  return out;
};

/**
 * The object with its keys in the apiserver's order; `previous`, an object already in that order
 * (the stored version `obj` replaces), lets a custom resource's unchanged parts go unchecked.
 *
 * @example
 * canonical(false, { metadata: { uid: "u", name: "n" }, apiVersion: "v1", kind: "ConfigMap" })
 * // { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "n", uid: "u" } }
 */
export const canonical = (custom: boolean, obj: JsonObject, previous?: JsonObject): JsonObject => {
  if (custom) return sortedDeep(obj, previous) as JsonObject;
  const top = ordered(obj, ["kind", "apiVersion", "metadata"]);
  if (isObject(top.metadata)) {
    const meta = ordered(top.metadata, OBJECT_META_FIELDS);
    for (const map of ["labels", "annotations"]) if (isObject(meta[map])) meta[map] = sortedMap(meta[map]);
    top.metadata = meta;
  }
  if (top.kind === "ConfigMap" || top.kind === "Secret")
    for (const map of ["data", "binaryData", "stringData"])
      if (isObject(top[map])) top[map] = sortedMap(top[map]);
  return top;
};

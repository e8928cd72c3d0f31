/**
 * Key order of served objects as the apiserver writes them: built-in types in Go struct order
 * (`kind`, `apiVersion`, `metadata` in ObjectMeta's field order, then the rest) with their Go maps
 * sorted (labels, annotations, a ConfigMap's or Secret's data), custom resources as Go maps (every
 * object's keys sorted). Webhooks get objects in this order too.
 */
import { isObject, type JsonObject } from "./internal/Json.ts";

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

const sortedDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedDeep(value[k]);
  return out;
};

/** A Go map's keys, sorted (one level: its values are strings). */
const sortedMap = (map: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const k of Object.keys(map).sort()) out[k] = map[k];
  return out;
};

/**
 * The object with its keys in the apiserver's order.
 *
 * @example
 * canonical(false, { metadata: { uid: "u", name: "n" }, apiVersion: "v1", kind: "ConfigMap" })
 * // { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "n", uid: "u" } }
 */
export const canonical = (custom: boolean, obj: JsonObject): JsonObject => {
  if (custom) return sortedDeep(obj) as JsonObject;
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

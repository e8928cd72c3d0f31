/**
 * Structural schemas of custom resources (a CRD version's `openAPIV3Schema`): pruning of unknown
 * fields (honouring `x-kubernetes-preserve-unknown-fields` and embedded resources), defaulting,
 * and validation with the apiserver's field-error wording.
 */
import { OBJECT_META_FIELDS } from "./Canonical.ts";
import type * as FieldError from "./FieldError.ts";
import { clone, isObject, type JsonObject, putField } from "./internal/Json.ts";
import { embedded, preserves, props, sub } from "./internal/schemaParts.ts";
import { validateValue } from "./internal/schemaValidation.ts";

/** A JSONSchemaProps object as a CRD carries it. */
export type StructuralSchema = JsonObject;

const META_FIELDS = new Set(OBJECT_META_FIELDS);

/** What a field mapping returns for a field to leave out. */
const DROP: unique symbol = Symbol("drop");

/**
 * `value` with `f` applied to each field (or the field dropped when `f` answers DROP): the same
 * object when nothing changed, so that a write that needs no pruning, null-dropping or defaulting
 * copies nothing.
 */
const mapFields = (value: JsonObject, f: (key: string, field: unknown) => unknown): JsonObject => {
  let out: JsonObject | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const field = value[key];
    const mapped = f(key, field);
    if (out === undefined) {
      if (mapped === field) continue;
      out = {};
      for (let j = 0; j < i; j++) putField(out, keys[j] as string, value[keys[j] as string]);
    }
    if (mapped !== DROP) putField(out, key, mapped);
  }
  return out ?? value;
};

/** `items` with `f` applied to each item: the same array when no item changed. */
const mapItems = (items: ReadonlyArray<unknown>, f: (item: unknown, index: number) => unknown): unknown => {
  let out: Array<unknown> | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const mapped = f(item, i);
    if (out === undefined && mapped !== item) out = items.slice(0, i);
    out?.push(mapped);
  }
  return out ?? items;
};

const pruneMeta = (meta: unknown): unknown =>
  isObject(meta) ? mapFields(meta, (k, v) => (META_FIELDS.has(k) ? v : DROP)) : meta;

const pruneValue = (
  value: unknown,
  schema: StructuralSchema | undefined,
  isRoot: boolean,
  path: string,
  dropped: Array<string>,
): unknown => {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = sub(schema, "items");
    return items === undefined
      ? value
      : mapItems(value, (v, i) => pruneValue(v, items, false, `${path}[${i}]`, dropped));
  }
  if (!isObject(value)) return value;
  const properties = props(schema);
  const additional = sub(schema, "additionalProperties");
  const keepAll = preserves(schema) || schema.additionalProperties === true;
  const top = isRoot || embedded(schema);
  return mapFields(value, (k, v) => {
    if (top && (k === "apiVersion" || k === "kind")) return v;
    if (top && k === "metadata") return isRoot ? v : pruneMeta(v);
    const p = path === "" ? k : `${path}.${k}`;
    if (Object.hasOwn(properties, k))
      return pruneValue(v, properties[k] as StructuralSchema, false, p, dropped);
    if (additional !== undefined) return pruneValue(v, additional, false, p, dropped);
    if (keepAll) return v;
    dropped.push(p);
    return DROP;
  });
};

/**
 * Drops fields the schema does not know (apiVersion, kind and metadata stay at the root); the
 * dotted paths of dropped fields are pushed to `dropped`.
 */
export const prune = (obj: JsonObject, schema: StructuralSchema, dropped: Array<string> = []): JsonObject =>
  pruneValue(obj, schema, true, "", dropped) as JsonObject;

const nonNullableNull = (value: unknown, schema: StructuralSchema | undefined): boolean =>
  value === null && schema !== undefined && schema.nullable !== true;

const dropNullsValue = (value: unknown, schema: StructuralSchema | undefined): unknown => {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = sub(schema, "items");
    return items === undefined ? value : mapItems(value, (v) => dropNullsValue(v, items));
  }
  if (!isObject(value)) return value;
  const properties = props(schema);
  const additional = sub(schema, "additionalProperties");
  return mapFields(value, (k, v) => {
    const s = Object.hasOwn(properties, k) && isObject(properties[k]) ? properties[k] : additional;
    return nonNullableNull(v, s) && s?.default === undefined ? DROP : dropNullsValue(v, s);
  });
};

/**
 * Drops the `null`s of fields (properties and map values) whose schema is neither nullable nor
 * defaulted, as kube-apiserver does after pruning: such a field counts as absent (a required one
 * is then missing). Defaulted ones are left for {@link applyDefaults}.
 */
export const dropNonNullableNulls = (obj: JsonObject, schema: StructuralSchema): JsonObject =>
  dropNullsValue(obj, schema) as JsonObject;

const defaultValue = (value: unknown, schema: StructuralSchema | undefined): unknown => {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = sub(schema, "items");
    return items === undefined
      ? value
      : mapItems(value, (v) =>
          nonNullableNull(v, items) && items.default !== undefined
            ? clone(items.default)
            : defaultValue(v, items),
        );
  }
  if (!isObject(value)) return value;
  // Copied on the first field that changes.
  let out: JsonObject | undefined;
  const set = (k: string, v: unknown) => {
    if ((out ?? value)[k] === v) return;
    out ??= { ...value };
    putField(out, k, v);
  };
  const properties = props(schema);
  for (const [k, s] of Object.entries(properties)) {
    if (!isObject(s)) continue;
    const given = (out ?? value)[k];
    if (given === undefined && s.default !== undefined) set(k, clone(s.default));
    else if (given === null && s.default !== undefined && s.nullable !== true) set(k, clone(s.default));
    const now = (out ?? value)[k];
    if (now !== undefined) set(k, defaultValue(now, s));
  }
  const additional = sub(schema, "additionalProperties");
  if (additional !== undefined)
    for (const k of Object.keys(out ?? value))
      if (!Object.hasOwn(properties, k)) {
        const v = (out ?? value)[k];
        set(
          k,
          nonNullableNull(v, additional) && additional.default !== undefined
            ? clone(additional.default)
            : defaultValue(v, additional),
        );
      }
  return out ?? value;
};

/**
 * Fills in `default`s of absent properties and of `null`s where the schema is not nullable
 * (properties, map values, list items), recursively (then the result is pruned again).
 */
export const applyDefaults = (obj: JsonObject, schema: StructuralSchema): JsonObject =>
  defaultValue(obj, schema) as JsonObject;

/** Validates a (pruned, defaulted) custom resource against its schema; metadata is checked elsewhere. */
export const validate = (obj: JsonObject, schema: StructuralSchema): Array<FieldError.FieldError> => {
  const errors: Array<FieldError.FieldError> = [];
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  const rootProps = { ...props(schema) };
  delete rootProps.metadata;
  delete rootProps.apiVersion;
  delete rootProps.kind;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r) => r !== "metadata" && r !== "apiVersion" && r !== "kind")
    : undefined;
  validateValue(
    rest,
    { ...schema, properties: rootProps, ...(required === undefined ? {} : { required }) },
    "",
    errors,
  );
  return errors;
};

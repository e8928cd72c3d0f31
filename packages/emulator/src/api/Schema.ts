/**
 * Structural schemas of custom resources (a CRD version's `openAPIV3Schema`): pruning of unknown
 * fields (honouring `x-kubernetes-preserve-unknown-fields` and embedded resources), defaulting,
 * and validation with the apiserver's field-error wording.
 */
import { OBJECT_META_FIELDS } from "./Canonical.ts";
import * as FieldError from "./FieldError.ts";
import { clone, isObject, type JsonObject, putField } from "./internal/Json.ts";

/** A JSONSchemaProps object as a CRD carries it. */
export type StructuralSchema = JsonObject;

const sub = (
  schema: StructuralSchema,
  key: "items" | "additionalProperties",
): StructuralSchema | undefined => {
  const s = schema[key];
  return isObject(s) ? s : undefined;
};
const props = (schema: StructuralSchema): JsonObject =>
  isObject(schema.properties) ? schema.properties : {};
const preserves = (schema: StructuralSchema): boolean =>
  schema["x-kubernetes-preserve-unknown-fields"] === true;
const embedded = (schema: StructuralSchema): boolean => schema["x-kubernetes-embedded-resource"] === true;

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

const typeName = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number"
        ? // kube-apiserver reads a JSON number as an integer only when it fits an int64.
          Number.isInteger(value) && Math.abs(value) < 2 ** 63
          ? "integer"
          : "number"
        : typeof value === "string"
          ? "string"
          : typeof value === "boolean"
            ? "boolean"
            : "object";

const typeMatches = (type: unknown, value: unknown): boolean => {
  const actual = typeName(value);
  if (type === undefined || type === "") return true;
  if (type === "number") return actual === "number" || actual === "integer";
  return type === actual;
};

const validateValue = (
  value: unknown,
  schema: StructuralSchema,
  path: string,
  errors: Array<FieldError.FieldError>,
) => {
  const intOrString = schema["x-kubernetes-int-or-string"] === true;
  if (value === null && intOrString && schema.nullable !== true) {
    // kube-apiserver validates int-or-string as anyOf integer or string, which null is neither.
    errors.push(
      FieldError.typeInvalid(path, "null", `${path} in body must be of type integer,string: "null"`),
    );
    return;
  }
  if (value === null) {
    if (schema.nullable === true || schema.type === undefined || preserves(schema)) return;
    errors.push(
      FieldError.typeInvalid(path, "null", `${path} in body must be of type ${String(schema.type)}: "null"`),
    );
    return;
  }
  if (intOrString) {
    if (typeName(value) !== "integer" && typeName(value) !== "string")
      errors.push(
        FieldError.typeInvalid(
          path,
          typeName(value),
          `${path} in body must be of type integer,string: "${typeName(value)}"`,
        ),
      );
  } else if (!typeMatches(schema.type, value)) {
    errors.push(
      FieldError.typeInvalid(
        path,
        typeName(value),
        `${path} in body must be of type ${String(schema.type)}: "${typeName(value)}"`,
      ),
    );
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    errors.push(
      FieldError.notSupported(
        path,
        value,
        schema.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e))),
      ),
    );
  if (typeof value === "number") {
    if (typeof schema.multipleOf === "number" && !Number.isInteger(value / schema.multipleOf))
      errors.push(
        FieldError.invalid(path, value, `${path} in body should be a multiple of ${schema.multipleOf}`),
      );
    if (
      typeof schema.minimum === "number" &&
      (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum)
    )
      errors.push(
        FieldError.invalid(
          path,
          value,
          `${path} in body should be greater than ${schema.exclusiveMinimum === true ? "" : "or equal to "}${schema.minimum}`,
        ),
      );
    if (
      typeof schema.maximum === "number" &&
      (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum)
    )
      errors.push(
        FieldError.invalid(
          path,
          value,
          `${path} in body should be less than ${schema.exclusiveMaximum === true ? "" : "or equal to "}${schema.maximum}`,
        ),
      );
  }
  if (typeof value === "string") {
    const len = [...value].length;
    if (typeof schema.maxLength === "number" && len > schema.maxLength)
      errors.push(FieldError.tooLong(path, `may not be more than ${schema.maxLength} bytes`));
    if (typeof schema.minLength === "number" && len < schema.minLength)
      errors.push(
        FieldError.invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`),
      );
    if (typeof schema.pattern === "string") {
      let re: RegExp | undefined;
      try {
        re = new RegExp(schema.pattern, "u");
      } catch {
        re = undefined;
      }
      if (re !== undefined && !re.test(value))
        errors.push(FieldError.invalid(path, value, `${path} in body should match '${schema.pattern}'`));
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      errors.push({
        type: "FieldValueTooMany",
        field: path,
        value: value.length,
        detail: `must have at most ${schema.maxItems} items`,
      });
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      errors.push(
        FieldError.invalid(
          path,
          value.length,
          `${path} in body should have at least ${schema.minItems} items`,
        ),
      );
    if (schema["x-kubernetes-list-type"] === "set") {
      const seen = new Set<string>();
      for (const [i, v] of value.entries()) {
        const key = JSON.stringify(v);
        if (seen.has(key))
          errors.push({ type: "FieldValueDuplicate", field: `${path}[${i}]`, value: v, detail: "" });
        seen.add(key);
      }
    }
    const items = sub(schema, "items");
    if (items !== undefined)
      for (const [i, v] of value.entries()) validateValue(v, items, `${path}[${i}]`, errors);
  }
  if (isObject(value)) {
    const properties = props(schema);
    if (Array.isArray(schema.required))
      for (const r of schema.required)
        if (typeof r === "string" && value[r] === undefined)
          errors.push(FieldError.required(path === "" ? r : `${path}.${r}`));
    const additional = sub(schema, "additionalProperties");
    for (const [k, v] of Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const p = path === "" ? k : `${path}.${k}`;
      const s = properties[k];
      if (isObject(s)) validateValue(v, s, p, errors);
      else if (additional !== undefined) validateValue(v, additional, p, errors);
    }
    if (typeof schema.minProperties === "number" && Object.keys(value).length < schema.minProperties)
      errors.push(
        FieldError.invalid(
          path,
          value,
          `${path} in body should have at least ${schema.minProperties} properties`,
        ),
      );
    if (typeof schema.maxProperties === "number" && Object.keys(value).length > schema.maxProperties)
      errors.push({
        type: "FieldValueTooMany",
        field: path,
        value: Object.keys(value).length,
        detail: `must have at most ${schema.maxProperties} items`,
      });
  }
};

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

/**
 * The validation of a value against a structural schema node, with kube-apiserver's field-error
 * wording (types, int-or-string, nullability, enums, bounds and multiples, patterns, lengths and
 * counts, required fields, list types, items and properties): the recursion behind
 * `Schema.validate`.
 */
import * as FieldError from "../FieldError.ts";
import type { StructuralSchema } from "../Schema.ts";
import { isObject } from "./Json.ts";
import { preserves, props, sub } from "./schemaParts.ts";

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

/**
 * Adds to `errors` what is wrong with `value` at `path` (the field's path; `""` at the root)
 * against `schema`.
 *
 * @example
 * const errors: Array<FieldError.FieldError> = []
 * validateValue({ replicas: "three" }, schema, "", errors) // errors: spec.replicas, Invalid type
 */
export const validateValue = (
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

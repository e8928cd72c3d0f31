/**
 * The API server's treatment of `null`s before it defaults and validates a custom resource: a
 * `null` in a field (a property or a map value) whose schema is not nullable is dropped, as if
 * the field were absent, so a default applies and a missing required field is reported; a `null`
 * item of a list whose items are not nullable but have a default becomes that default. Decoding
 * does the same first, or the Schema would reject what the server stores.
 */
import type { JsonSchemaProps } from "../OpenApi.ts";

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const nonNullable = (schema: JsonSchemaProps | undefined): schema is JsonSchemaProps =>
  schema !== undefined && schema.nullable !== true;

/**
 * The value with the `null`s of non-nullable fields removed (recursively), and the `null` items
 * of lists with defaulted, non-nullable items replaced by the default.
 *
 * @example
 * dropNonNullableNulls({ a: null, b: null }, {
 *   type: "object",
 *   properties: { a: { type: "string" }, b: { type: "string", nullable: true } },
 * }) // { b: null }
 */
export const dropNonNullableNulls = (value: unknown, schema: JsonSchemaProps | undefined): unknown => {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? (schema.items as JsonSchemaProps) : undefined;
    if (items === undefined) return value;
    return value.map((v) =>
      v === null && nonNullable(items) && items.default !== undefined
        ? (JSON.parse(JSON.stringify(items.default)) as unknown)
        : dropNonNullableNulls(v, items),
    );
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JsonSchemaProps)
    : undefined;
  // Built with fromEntries: a `__proto__` key stays an own field, as it is in JSON.
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, v]) => {
      const sub = Object.hasOwn(properties, key) ? (properties[key] as JsonSchemaProps) : additional;
      return v === null && nonNullable(sub) ? [] : [[key, dropNonNullableNulls(v, sub)]];
    }),
  );
};

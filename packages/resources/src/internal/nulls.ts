/**
 * The API server's treatment of `null`s before defaulting: a `null` in a field that has a default
 * and is not nullable is dropped, so the default applies. Decoding does the same first, or the
 * Schema would reject what the server stores with its default.
 */
import type { JsonSchemaProps } from "../OpenApi.ts";

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The value with the `null`s of defaulted, non-nullable fields removed (recursively).
 *
 * @example
 * dropDefaultedNulls({ a: null }, { type: "object", properties: { a: { type: "string", default: "x" } } }) // {}
 */
export const dropDefaultedNulls = (value: unknown, schema: JsonSchemaProps | undefined): unknown => {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? schema.items : undefined;
    return items === undefined ? value : value.map((v) => dropDefaultedNulls(v, items));
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = isObject(properties[key]) ? (properties[key] as JsonSchemaProps) : additional;
    if (v === null && sub !== undefined && sub.default !== undefined && sub.nullable !== true) continue;
    out[key] = dropDefaultedNulls(v, sub);
  }
  return out;
};

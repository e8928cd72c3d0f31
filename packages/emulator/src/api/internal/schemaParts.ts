/**
 * The parts of a structural schema (a CRD version's `openAPIV3Schema` node) that pruning,
 * defaulting and validation read alike: a node's item or additional-properties schema, its
 * properties, and its `x-kubernetes-*` markers.
 */
import type { StructuralSchema } from "../Schema.ts";
import { isObject, type JsonObject } from "./Json.ts";

/**
 * The schema of a node's items or additional properties, if it has one.
 *
 * @example
 * sub({ type: "array", items: { type: "string" } }, "items") // { type: "string" }
 */
export const sub = (
  schema: StructuralSchema,
  key: "items" | "additionalProperties",
): StructuralSchema | undefined => {
  const s = schema[key];
  return isObject(s) ? s : undefined;
};

/**
 * A node's properties (none when it declares none).
 *
 * @example
 * props({ type: "object" }) // {}
 */
export const props = (schema: StructuralSchema): JsonObject =>
  isObject(schema.properties) ? schema.properties : {};

/** Whether a node keeps fields its schema does not name (`x-kubernetes-preserve-unknown-fields`). */
export const preserves = (schema: StructuralSchema): boolean =>
  schema["x-kubernetes-preserve-unknown-fields"] === true;

/** Whether a node is an embedded resource (`x-kubernetes-embedded-resource`). */
export const embedded = (schema: StructuralSchema): boolean =>
  schema["x-kubernetes-embedded-resource"] === true;

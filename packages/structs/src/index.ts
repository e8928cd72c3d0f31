/** Public API of @kopf/structs: Kubernetes data as plain values, one namespace per concept. */

export type { ObjectMeta, ObjectReference, OwnerReference, RawBody, RawEvent, RawEventType } from "./Body.ts";
export * as Body from "./Body.ts";
export type { DiffItem, DiffOperation, DiffScope } from "./Diff.ts";
export * as Diff from "./Diff.ts";
export type { FieldSpec } from "./FieldPath.ts";
export * as FieldPath from "./FieldPath.ts";
export type { JsonObject, JsonValue } from "./Json.ts";
export * as Json from "./Json.ts";

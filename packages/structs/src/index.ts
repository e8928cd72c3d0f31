/** Public API of @kopf/structs: Kubernetes data as plain values, one namespace per concept. */

export type {
  KubeObject,
  MutableBody,
  ObjectMeta,
  ObjectReference,
  OwnerReference,
  RawBody,
  RawEvent,
  RawEventType,
} from "./Body.ts";
export * as Body from "./Body.ts";
export type { DiffItem, DiffOperation, DiffScope } from "./Diff.ts";
export * as Diff from "./Diff.ts";
export type { FieldSpec } from "./FieldPath.ts";
export * as FieldPath from "./FieldPath.ts";
export * as Finalizers from "./Finalizers.ts";
export * as IsoTime from "./IsoTime.ts";
export type { JsonObject, JsonValue } from "./Json.ts";
export * as Json from "./Json.ts";
export type { JsonPatchOp } from "./JsonPatch.ts";
export * as JsonPatch from "./JsonPatch.ts";
export * as Namespaces from "./Namespaces.ts";
export type { MetaMapPatch, MetaPatch, PatchFn, PatchObject } from "./Patch.ts";
export * as Patch from "./Patch.ts";
export type { PatchValue as PatchValueType } from "./PatchValue.ts";
export * as PatchValue from "./PatchValue.ts";
export * as Resource from "./Resource.ts";
export * as Selector from "./Selector.ts";
export { EVERYTHING } from "./Selector.ts";
export type { ShardRange as ShardRangeValue } from "./ShardRange.ts";
export * as ShardRange from "./ShardRange.ts";
export { ShardSelectorError } from "./ShardRange.ts";

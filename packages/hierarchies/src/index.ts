/**
 * Public API of @kopf/hierarchies: Kopf's hierarchies kit (docs/behaviour/hierarchies.md) for plain objects and
 * kubernetes-fluent-client models (plain objects too). The top-level functions need the owner
 * explicitly; `Kit.bind` gives the same functions defaulting to the current handler's body.
 */
export { HierarchyError } from "./HierarchyError.ts";
export type { Obj } from "./internal/walk.ts";
export type { AdoptOptions, OwnerSource } from "./Kit.ts";
export * as Kit from "./Kit.ts";
export {
  adjustNamespace,
  adopt,
  appendOwnerReference,
  buildObjectReference,
  buildOwnerReference,
  harmonizeNaming,
  label,
  removeOwnerReference,
} from "./Kit.ts";
export type { LabelOptions } from "./Labels.ts";
export * as Labels from "./Labels.ts";
export type { NamespaceOptions } from "./Namespacing.ts";
export * as Namespacing from "./Namespacing.ts";
export type { NamingOptions } from "./Naming.ts";
export * as Naming from "./Naming.ts";
export type { OwnerReferenceOptions, Reference } from "./References.ts";
export * as References from "./References.ts";

/** Public API of @kopf/storage: on-cluster state in Kopf's exact formats. */
export * as AnnotationKeys from "./AnnotationKeys.ts";
export * as StorageError from "./StorageError.ts";
export { StorageConfigError, StorageDecodeError } from "./StorageError.ts";

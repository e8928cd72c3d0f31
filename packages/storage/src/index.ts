/** Public API of @kopf/storage: on-cluster state in Kopf's exact formats. */
export * as AnnotationKeys from "./AnnotationKeys.ts";
export * as AnnotationsDiffBaseStorage from "./AnnotationsDiffBaseStorage.ts";
export * as AnnotationsProgressStorage from "./AnnotationsProgressStorage.ts";
export * as DiffBaseStorage from "./DiffBaseStorage.ts";
export * as Essence from "./Essence.ts";
export * as HandlerState from "./HandlerState.ts";
export * as MultiDiffBaseStorage from "./MultiDiffBaseStorage.ts";
export * as MultiProgressStorage from "./MultiProgressStorage.ts";
export * as Outcome from "./Outcome.ts";
export * as Progression from "./Progression.ts";
export * as ProgressRecord from "./ProgressRecord.ts";
export * as ProgressStorage from "./ProgressStorage.ts";
export * as SmartProgressStorage from "./SmartProgressStorage.ts";
export * as State from "./State.ts";
export * as StatusDiffBaseStorage from "./StatusDiffBaseStorage.ts";
export * as StatusProgressStorage from "./StatusProgressStorage.ts";
export * as StorageError from "./StorageError.ts";
export { StorageConfigError, StorageDecodeError } from "./StorageError.ts";

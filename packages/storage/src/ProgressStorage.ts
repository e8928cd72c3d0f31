/**
 * The progress storage interface (Kopf's `ProgressStorage`, docs/behaviour/progress.md#storages) that every progress
 * storage implements, built-in or custom. The built-in ones are `AnnotationsProgressStorage`,
 * `StatusProgressStorage`, `MultiProgressStorage` and `SmartProgressStorage` (the default).
 *
 * @example
 * ```ts
 * import type { ProgressStorage } from "@kopf/storage"
 * const storage: ProgressStorage.ProgressStorage = SmartProgressStorage.makeDefault()
 * ```
 */
export type { PatchLike, ProgressStorage } from "./internal/progressStorageApi.ts";

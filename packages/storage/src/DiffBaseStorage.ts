/**
 * The diff-base storage interface (Kopf's `DiffBaseStorage`, docs/behaviour/causes.md#essence and docs/behaviour/causes.md#last-handled-configuration): where the
 * essence of the last handled state of an object (its "last-handled-configuration") is kept,
 * to compute what changed since. Built-in: `AnnotationsDiffBaseStorage` (the default),
 * `StatusDiffBaseStorage`, `MultiDiffBaseStorage`; custom storages implement the interface.
 */
import { type FieldSpec, Json, type RawBody } from "@kopf/structs";
import type * as Result from "effect/Result";
import type { PatchLike } from "./internal/progressStorageApi.ts";
import type { StorageDecodeError } from "./StorageError.ts";

/**
 * A diff-base storage.
 *
 * @example
 * ```ts
 * const storage: DiffBaseStorage.DiffBaseStorage = AnnotationsDiffBaseStorage.makeDefault()
 * const old = storage.fetch({ body })          // Result<essence | undefined, StorageDecodeError>
 * const now = storage.build({ body, extraFields: ["status.phase"] })
 * ```
 */
export interface DiffBaseStorage {
  /** The essence of the body, without anything this storage keeps in the object itself. */
  readonly build: (args: {
    readonly body: RawBody;
    readonly extraFields?: Iterable<FieldSpec> | undefined;
  }) => Json.JsonObject;
  /** The stored essence of the last handled state, or `undefined` if there is none. */
  readonly fetch: (args: {
    readonly body: RawBody;
  }) => Result.Result<Json.JsonObject | undefined, StorageDecodeError>;
  /** Write the essence into the patch. */
  readonly store: (args: {
    readonly body: RawBody;
    readonly patch: PatchLike;
    readonly essence: Json.JsonObject;
  }) => void;
}

/**
 * Store the new essence only if there is one and it differs from the old one (docs/behaviour/causes.md#last-handled-configuration), as
 * Kopf does when a cause is fully handled. Returns whether it was stored.
 *
 * @example
 * ```ts
 * DiffBaseStorage.storeIfChanged(storage, { body, patch, old, new: essence })
 * ```
 */
export const storeIfChanged = (
  storage: DiffBaseStorage,
  args: {
    readonly body: RawBody;
    readonly patch: PatchLike;
    readonly old: Json.JsonObject | null | undefined;
    readonly new: Json.JsonObject | null | undefined;
  },
): boolean => {
  const essence = args.new;
  if (essence === null || essence === undefined) return false;
  if (Json.deepEqual(args.old ?? null, essence)) return false;
  storage.store({ body: args.body, patch: args.patch, essence });
  return true;
};

/**
 * Several progress storages used as one (Kopf's `MultiProgressStorage`, docs/behaviour/progress.md#storages): records are
 * read from the first storage that has them, and written, purged and touched in all of them.
 */
import * as Result from "effect/Result";
import type { ProgressStorage } from "./internal/progressStorageApi.ts";
import { type Reserve, reserveOf, withReserve } from "./internal/reservations.ts";
import type { ProgressRecord } from "./ProgressRecord.ts";
import type { StorageDecodeError } from "./StorageError.ts";

/** A multi-storage and the storages it combines, in reading order. */
export interface MultiProgressStorage extends ProgressStorage {
  readonly _tag: "MultiProgressStorage" | "SmartProgressStorage";
  readonly storages: ReadonlyArray<ProgressStorage>;
}

/**
 * Combine storages under the given tag, with any further fields of the combined storage (used by
 * `SmartProgressStorage` too).
 *
 * @example
 * ```ts
 * MultiProgressStorage.combine("MultiProgressStorage", [first, second])
 * ```
 */
export const combine = <Tag extends MultiProgressStorage["_tag"], Extra extends object = object>(
  tag: Tag,
  storages: ReadonlyArray<ProgressStorage>,
  extra?: Extra,
): MultiProgressStorage & { readonly _tag: Tag } & Extra =>
  withReserveOfAll(storages, {
    ...(extra as Extra),
    _tag: tag,
    storages,
    fetch: (args) => {
      for (const storage of storages) {
        const content = storage.fetch(args);
        if (Result.isFailure(content) || content.success !== undefined) return content;
      }
      return Result.succeed<ProgressRecord | undefined>(undefined) as Result.Result<
        ProgressRecord | undefined,
        StorageDecodeError
      >;
    },
    store: (args) => {
      for (const storage of storages) storage.store(args);
    },
    purge: (args) => {
      for (const storage of storages) storage.purge(args);
    },
    touch: (args) => {
      for (const storage of storages) storage.touch(args);
    },
    clear: ({ essence }) => storages.reduce((acc, storage) => storage.clear({ essence: acc }), essence),
    flush: () => {
      for (const storage of storages) storage.flush();
    },
  });

/** The storage, with a reservation when each of the storages it combines has one. */
const withReserveOfAll = <S extends ProgressStorage>(
  storages: ReadonlyArray<ProgressStorage>,
  multi: S,
): S => {
  const reserves: Array<Reserve> = [];
  for (const storage of storages) {
    const reserve = reserveOf(storage);
    if (reserve === undefined) return multi;
    reserves.push(reserve);
  }
  return withReserve(multi, (args) => {
    for (const reserve of reserves) reserve(args);
  });
};

/**
 * Use several progress storages as one.
 *
 * @example
 * ```ts
 * const storage = MultiProgressStorage.make([
 *   AnnotationsProgressStorage.makeDefault(),
 *   StatusProgressStorage.make(),
 * ])
 * ```
 */
export const make = (storages: ReadonlyArray<ProgressStorage>): MultiProgressStorage =>
  combine("MultiProgressStorage", storages);

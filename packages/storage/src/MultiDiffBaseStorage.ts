/**
 * Several diff-base storages used as one (Kopf's `MultiDiffBaseStorage`, docs/behaviour/causes.md#last-handled-configuration): the
 * essence is read from the first storage that has one and written to all; each storage
 * removes its own fields from the essence in turn.
 */
import * as Result from "effect/Result";
import type { DiffBaseStorage } from "./DiffBaseStorage.ts";
import * as Essence from "./Essence.ts";

/** A multi-storage and the storages it combines, in reading order. */
export interface MultiDiffBaseStorage extends DiffBaseStorage {
  readonly _tag: "MultiDiffBaseStorage";
  readonly storages: ReadonlyArray<DiffBaseStorage>;
}

/**
 * Use several diff-base storages as one, e.g. while migrating from one place to another.
 *
 * @example
 * ```ts
 * const storage = MultiDiffBaseStorage.make([
 *   AnnotationsDiffBaseStorage.makeDefault(),
 *   StatusDiffBaseStorage.make(),
 * ])
 * ```
 */
export const make = (storages: ReadonlyArray<DiffBaseStorage>): MultiDiffBaseStorage => ({
  _tag: "MultiDiffBaseStorage",
  storages,
  // Each storage builds from what is left so far, taken as the body.
  build: ({ body, extraFields }) => {
    const fields = [...(extraFields ?? [])];
    return storages.reduce(
      (essence, storage) => storage.build({ body: essence, extraFields: fields }),
      Essence.build(body, { extraFields: fields }),
    );
  },
  fetch: ({ body }) => {
    for (const storage of storages) {
      const content = storage.fetch({ body });
      if (Result.isFailure(content) || content.success !== undefined) return content;
    }
    return Result.succeed(undefined);
  },
  store: (args) => {
    for (const storage of storages) storage.store(args);
  },
});

/**
 * The last-handled configuration kept in the status, `status.{name}.last-handled-configuration`
 * (Kopf's `StatusDiffBaseStorage`, docs/behaviour/causes.md#last-handled-configuration), as one compact-JSON string (not a nested object,
 * to avoid merges). Needs a status that Kubernetes does not prune.
 */
import { FieldPath, type FieldSpec, type Json } from "@kopf/structs";
import * as Result from "effect/Result";
import type { DiffBaseStorage } from "./DiffBaseStorage.ts";
import * as Essence from "./Essence.ts";
import { ensure, type MutableObject, remove } from "./internal/dicts.ts";
import { decodeEssence, encodeEssence } from "./internal/essenceCodec.ts";
import { formatField } from "./StatusProgressStorage.ts";
import { StorageDecodeError } from "./StorageError.ts";

/** Options, all optional; the defaults are Kopf's. `{name}` in a string field is replaced. */
export interface Options {
  /** Default `kopf`. */
  readonly name?: string;
  /** Default `status.{name}.last-handled-configuration`. */
  readonly field?: FieldSpec;
  /** Fields never included in the essence. */
  readonly ignoredFields?: Iterable<FieldSpec>;
}

/** The status diff-base storage with its resolved field. */
export interface StatusDiffBaseStorage extends DiffBaseStorage {
  readonly _tag: "StatusDiffBaseStorage";
  readonly name: string;
  readonly field: FieldPath.FieldPath;
  readonly ignoredFields: ReadonlyArray<FieldSpec>;
}

/**
 * Make a status diff-base storage.
 *
 * @example
 * ```ts
 * const storage = StatusDiffBaseStorage.make({ name: "my-op" })
 * // status.my-op.last-handled-configuration
 * ```
 */
export const make = (options: Options = {}): StatusDiffBaseStorage => {
  const name = options.name ?? "kopf";
  const field = formatField(options.field ?? "status.{name}.last-handled-configuration", name);
  const ignoredFields = [...(options.ignoredFields ?? [])];
  const where = FieldPath.format(field);
  return {
    _tag: "StatusDiffBaseStorage",
    name,
    field,
    ignoredFields,
    build: ({ body, extraFields }) => {
      const essence = Essence.build(body, { extraFields, ignoredFields }) as MutableObject;
      remove(essence, field);
      return essence as Json.JsonObject;
    },
    fetch: ({ body }) => {
      const encoded = FieldPath.resolve(body, field);
      if (encoded === undefined || encoded === null) return Result.succeed(undefined);
      if (typeof encoded === "string") return decodeEssence(encoded, where);
      return Result.fail(
        new StorageDecodeError({
          reason: "InvalidField",
          key: where,
          message: `The last-handled configuration in ${where} is not a string.`,
        }),
      );
    },
    store: ({ patch, essence }) => ensure(patch, field, encodeEssence(essence)),
  };
};

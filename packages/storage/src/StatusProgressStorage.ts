/**
 * Handler progress kept in the object's status as nested objects under
 * `status.{name}.progress.{handler id}` (Kopf's `StatusProgressStorage`, docs/behaviour/progress.md#storages): the
 * original, legacy place. Also the read-and-purge-only variant Kopf uses by default to clean up
 * legacy records without writing new ones.
 */
import { FieldPath, type FieldSpec, Json } from "@kopf/structs";
import * as Result from "effect/Result";
import { hasEmptyStanzas, removeEmptyStanzas } from "./internal/conventions.ts";
import { ensure, type MutableObject, purgeField, remove, removes } from "./internal/dicts.ts";
import type { ProgressStorage } from "./internal/progressStorageApi.ts";
import { withReserve } from "./internal/reservations.ts";
import * as ProgressRecord from "./ProgressRecord.ts";

/** Options, all optional; the defaults are Kopf's. `{name}` in string fields is replaced. */
export interface Options {
  /** Default `kopf`. */
  readonly name?: string;
  /** Where records live; default `status.{name}.progress`. */
  readonly field?: FieldSpec;
  /** Where the touch-dummy lives; default `status.{name}.dummy`. */
  readonly touchField?: FieldSpec;
}

/** The status progress storage with its resolved fields. */
export interface StatusProgressStorage extends ProgressStorage {
  readonly _tag: "StatusProgressStorage" | "NoWriteStatusProgressStorage";
  readonly name: string;
  readonly field: FieldPath.FieldPath;
  readonly touchField: FieldPath.FieldPath;
}

/**
 * A field spec with `{name}` substituted (strings only, as Kopf's `str.format`).
 *
 * @example
 * ```ts
 * StatusProgressStorage.formatField("status.{name}.progress", "my-op") // ["status", "my-op", "progress"]
 * ```
 */
export const formatField = (field: FieldSpec, name: string): FieldPath.FieldPath =>
  FieldPath.parse(typeof field === "string" ? field.replaceAll("{name}", name) : field);

const build = (options: Options, writes: boolean): StatusProgressStorage => {
  const name = options.name ?? "kopf";
  const field = formatField(options.field ?? "status.{name}.progress", name);
  const touchField = formatField(options.touchField ?? "status.{name}.dummy", name);
  const storage: StatusProgressStorage = {
    _tag: writes ? "StatusProgressStorage" : "NoWriteStatusProgressStorage",
    name,
    field,
    touchField,
    fetch: ({ key, body }) => {
      const path = [...field, key];
      const value = FieldPath.resolve(body, path);
      return value === undefined || value === null
        ? Result.succeed(undefined)
        : ProgressRecord.validate(value, FieldPath.format(path));
    },
    // Null fields are stored as they are: Kubernetes prunes them from merge patches.
    store: ({ key, record, patch }) => {
      if (writes) ensure(patch, [...field, key], ProgressRecord.toJson(record, true));
    },
    purge: ({ key, body, patch }) => purgeField(body, patch, [...field, key]),
    touch: ({ body, patch, value }) => {
      if (!writes) return;
      const current = FieldPath.resolve(body, touchField) ?? null;
      if (current !== value) ensure(patch, touchField, value);
    },
    clear: ({ essence }) => {
      // Nothing of ours in it (the usual case with annotation storages): no copy is made.
      if (!removes(essence as MutableObject, field) && !hasEmptyStanzas(essence as MutableObject))
        return essence;
      const copy = Json.deepCopy(essence) as MutableObject;
      remove(copy, field);
      removeEmptyStanzas(copy);
      return copy as Json.JsonObject;
    },
    flush: () => {},
  };
  // A record is an object: so is its placeholder.
  return withReserve(storage, ({ key, patch }) => {
    if (writes) ensure(patch, [...field, key], {});
  });
};

/**
 * Make a status progress storage (it reads, writes, purges and touches the status).
 *
 * @example
 * ```ts
 * const storage = StatusProgressStorage.make({ name: "my-op" }) // status.my-op.progress
 * ```
 */
export const make = (options: Options = {}): StatusProgressStorage => build(options, true);

/**
 * Make the read-and-purge-only status storage (Kopf's internal `NoWriteStatusProgressStorage`):
 * `store` and `touch` do nothing, so legacy records are still read and cleaned up.
 *
 * @example
 * ```ts
 * const legacy = StatusProgressStorage.makeNoWrite()
 * ```
 */
export const makeNoWrite = (options: Options = {}): StatusProgressStorage => build(options, false);

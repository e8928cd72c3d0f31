/**
 * The progress storage interface, kept apart from its implementations so that `State` can use
 * it without an import cycle. Re-exported from `ProgressStorage.ts`.
 */
import type { Json, RawBody } from "@kopf/structs";
import type * as Result from "effect/Result";
import type { ProgressRecord } from "../ProgressRecord.ts";
import type { StorageDecodeError } from "../StorageError.ts";
import type { MutableObject } from "./dicts.ts";

/**
 * The patch a storage writes into: normally the cycle's `Patch` from @kopf/structs; any mutable
 * merge-patch object works (`null` deletes a key).
 */
export type PatchLike = MutableObject;

/**
 * Where handler progress is kept between processing cycles (Kopf's `ProgressStorage`). Custom
 * storages implement this interface. Writes go into the patch accumulated for the cycle;
 * `flush` is called after a batch of stores/purges for storages that buffer.
 */
export interface ProgressStorage {
  /** The record of one handler, or `undefined` when there is none. */
  readonly fetch: (args: {
    readonly key: string;
    readonly body: RawBody;
  }) => Result.Result<ProgressRecord | undefined, StorageDecodeError>;
  /** Write one handler's record into the patch. */
  readonly store: (args: {
    readonly key: string;
    readonly record: ProgressRecord;
    readonly body: RawBody;
    readonly patch: PatchLike;
  }) => void;
  /** Delete one handler's record: from the object if there, else from the pending patch. */
  readonly purge: (args: { readonly key: string; readonly body: RawBody; readonly patch: PatchLike }) => void;
  /** Set (or with `null`, delete) the dummy value that makes a PATCH produce a new event. */
  readonly touch: (args: {
    readonly body: RawBody;
    readonly patch: PatchLike;
    readonly value: string | null;
  }) => void;
  /** The essence without anything this storage keeps in the object (the essence itself when it holds nothing of the storage's: essences are not mutated). */
  readonly clear: (args: { readonly essence: Json.JsonObject }) => Json.JsonObject;
  /** Write out anything buffered (the built-in storages buffer nothing). */
  readonly flush: () => void;
}

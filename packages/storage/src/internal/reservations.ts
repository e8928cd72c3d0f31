/**
 * Reservations: how a built-in progress storage writes a record's place in the patch without the
 * record. A state done in the cycle that changed it has its records stored and then purged before
 * the patch is sent; the purge looks only at where each record is (in the object: deleted with
 * `null`; only in the patch: removed, with the parents that become empty), never at what it
 * holds. A reservation writes the same places (and the same marker) with a value of the record's
 * type, so the patch after the purge is the same, and no record is formatted for nothing. Only
 * the built-in storages have one; a custom storage is always given its records.
 */
import type { RawBody } from "@kopf/structs";
import type { PatchLike, ProgressStorage } from "./progressStorageApi.ts";

/** Writes the places of one handler's record as `store` would, with a placeholder value. */
export type Reserve = (args: {
  readonly key: string;
  readonly body: RawBody;
  readonly patch: PatchLike;
}) => void;

const reservers = new WeakMap<ProgressStorage, Reserve>();

/** Registers the reservation of a built-in storage; returns the storage. */
export const withReserve = <S extends ProgressStorage>(storage: S, reserve: Reserve): S => {
  reservers.set(storage, reserve);
  return storage;
};

/** The reservation of a storage, if it is a built-in one (or made only of built-in ones). */
export const reserveOf = (storage: ProgressStorage): Reserve | undefined => reservers.get(storage);

/**
 * A handlers' progress state written to its storage, or purged from it, at the end of a cycle
 * (re-exported by `State.ts` as `State.store` and `State.purge`).
 */
import type { RawBody } from "@kopf/structs";
import * as HandlerState from "../HandlerState.ts";
import type { HandlerRef, State } from "../State.ts";
import type { PatchLike, ProgressStorage } from "./progressStorageApi.ts";
import { reserveOf } from "./reservations.ts";

/**
 * Write the records that differ from what was loaded (new states always), then flush. Records
 * loaded and left unchanged are not rewritten. With `thenPurged` (the state is done, and
 * {@link purge} follows in the same cycle, before the patch is read), a built-in storage only
 * reserves the records' places: the purge leaves the same patch either way (see
 * `internal/reservations.ts`), and no record is formatted to be removed again. A custom storage
 * gets its records all the same.
 *
 * @example
 * ```ts
 * State.store(state, { body, patch, storage: settings.persistence.progressStorage })
 * ```
 */
export const store = (
  state: State,
  args: {
    readonly body: RawBody;
    readonly patch: PatchLike;
    readonly storage: ProgressStorage;
    readonly thenPurged?: boolean;
  },
): void => {
  const { body, patch, storage } = args;
  const reserve = args.thenPurged === true ? reserveOf(storage) : undefined;
  for (const [id, handler] of state.handlers) {
    if (!HandlerState.isChanged(handler)) continue;
    if (reserve !== undefined) reserve({ key: id, body, patch });
    else storage.store({ key: id, record: HandlerState.forStorage(handler), body, patch });
  }
  storage.flush();
};

/**
 * Purge the records of the owned handlers, of every other handler in the state, and of all
 * their sub-handlers (subrefs), then flush. Other operators' records are left alone.
 *
 * @example
 * ```ts
 * State.purge(state, { body, patch, storage, handlers: ownedHandlers })
 * ```
 */
export const purge = (
  state: State,
  args: {
    readonly body: RawBody;
    readonly patch: PatchLike;
    readonly storage: ProgressStorage;
    readonly handlers: Iterable<HandlerRef>;
  },
): void => {
  const { body, patch, storage } = args;
  const owned = new Set([...args.handlers].map(({ id }) => id));
  for (const id of owned) storage.purge({ key: id, body, patch });
  for (const [id, handler] of state.handlers) {
    if (!owned.has(id)) storage.purge({ key: id, body, patch });
    for (const subref of handler.subrefs) storage.purge({ key: subref, body, patch });
  }
  storage.flush();
};

/**
 * The consistency gate of a processing cycle (docs/behaviour/processing.md#cause-order, docs/behaviour/watching.md#consistency): change-detecting
 * handlers run only on a state that already includes our own last patch. After a PATCH, the
 * worker awaits the patched resource version until a deadline (`consistencyTime`, i.e. the
 * patch time plus `persistence.consistencyTimeout`); events arriving before it are stale.
 *
 * - No changing cause (none registered, stealth mode, or a finalizer-only cycle) ⇒ no gate.
 * - No version awaited, or the cause is `gone` ⇒ consistent upfront.
 * - Otherwise, with nothing patched in this cycle yet ⇒ wait until the deadline, interrupted by
 *   any new event ({@link afterWait}): a new event makes this state inconsistent (the newer one is
 *   processed next); when the whole wait elapsed, the object is re-read ({@link afterRefresh}).
 *   Kopf assumes consistency there, and runs the changing handlers on a state that may lack our
 *   own patch — a handler whose results were already stored then runs again. A re-read settles
 *   it: if the server has nothing newer than this state, it is consistent; if it has, this state
 *   is stale, and the re-read version is awaited instead (its event is on its way).
 * - Otherwise (something to patch already, e.g. finalizers or on.event results) ⇒ inconsistent:
 *   apply the patch and let the next events bring the new state.
 * - In all cases, a non-empty patch carried over from the previous cycle makes it inconsistent.
 *
 * An inconsistent state runs no changing handlers; the cycle returns only the spawning delays.
 */
import type { Reason } from "@kopf/registry";

/** What the gate looks at. */
export interface GateInput {
  /** The changing cause's reason, or `undefined` when no changing cause remains in this cycle. */
  readonly reason: Reason | undefined;
  /**
   * When the awaited version of our own patch is assumed to have arrived (in the runtime's clock),
   * or `undefined` when no version is awaited (or tracking is disabled by a zero timeout).
   */
  readonly consistencyTime: number | undefined;
  /** The patch accumulated so far in this cycle is empty. */
  readonly patchEmpty: boolean;
  /** The patch carried over from the previous cycle was empty when this cycle began. */
  readonly patchInitiallyEmpty: boolean;
}

/** What to do before the changing handlers. */
export type Gate =
  /** There is no changing cause: nothing to gate. */
  | { readonly _tag: "NotRequired" }
  /** Run the changing handlers. */
  | { readonly _tag: "Consistent" }
  /** Sleep until `until` or the next event of the object, then ask {@link afterWait}. */
  | { readonly _tag: "Wait"; readonly until: number }
  /** The awaited version did not come in time: re-read the object, then ask {@link afterRefresh}. */
  | { readonly _tag: "Refresh" }
  /** Skip the changing handlers this cycle. */
  | { readonly _tag: "Inconsistent" };

const NOT_REQUIRED: Gate = { _tag: "NotRequired" };
const CONSISTENT: Gate = { _tag: "Consistent" };
const INCONSISTENT: Gate = { _tag: "Inconsistent" };
const REFRESH: Gate = { _tag: "Refresh" };

/**
 * The gate before the changing handlers.
 *
 * @example
 * ```ts
 * import { ConsistencyGate } from "@kopf/causes";
 * ConsistencyGate.gate({ reason: "update", consistencyTime: 105, patchEmpty: true, patchInitiallyEmpty: true });
 * // { _tag: "Wait", until: 105 }
 * ```
 */
export const gate = (input: GateInput): Gate => {
  if (input.reason === undefined) return NOT_REQUIRED;
  if (!input.patchInitiallyEmpty) return INCONSISTENT;
  if (input.consistencyTime === undefined || input.reason === "gone") return CONSISTENT;
  if (input.patchEmpty) return { _tag: "Wait", until: input.consistencyTime };
  return INCONSISTENT;
};

/**
 * The gate after a {@link gate} `Wait`: inconsistent if a new event cut it short (it will be
 * processed next); if the whole wait elapsed without the awaited version, re-read the object
 * before deciding.
 *
 * @example
 * ```ts
 * import { ConsistencyGate } from "@kopf/causes";
 * ConsistencyGate.afterWait({ sleptFully: false }); // { _tag: "Inconsistent" }
 * ConsistencyGate.afterWait({ sleptFully: true }); // { _tag: "Refresh" }
 * ```
 */
export const afterWait = (outcome: { readonly sleptFully: boolean }): Gate =>
  outcome.sleptFully ? REFRESH : INCONSISTENT;

/** What a re-read found, against the state being processed. */
export interface RefreshInput {
  /** The version of the state being processed. */
  readonly processed: string | undefined;
  /** The version the API server has now; `undefined` when the re-read failed. */
  readonly current: string | undefined;
}

/** The gate after a re-read, and the version to await from now on (`null`: none). */
export interface Refreshed {
  readonly gate: Gate;
  readonly awaited: string | null;
}

/**
 * The gate after a {@link gate} `Refresh`: consistent when the server has nothing newer than the
 * state being processed (nothing is awaited any more); inconsistent when it has, and then the
 * server's version is awaited (the newer state's event is on its way). When the re-read failed,
 * consistency is assumed, as Kopf does after the timeout.
 *
 * @example
 * ```ts
 * import { ConsistencyGate } from "@kopf/causes";
 * ConsistencyGate.afterRefresh({ processed: "41", current: "43" });
 * // { gate: { _tag: "Inconsistent" }, awaited: "43" }
 * ConsistencyGate.afterRefresh({ processed: "43", current: "43" });
 * // { gate: { _tag: "Consistent" }, awaited: null }
 * ```
 */
export const afterRefresh = (input: RefreshInput): Refreshed =>
  input.current === undefined || input.current === input.processed
    ? { gate: CONSISTENT, awaited: null }
    : { gate: INCONSISTENT, awaited: input.current };

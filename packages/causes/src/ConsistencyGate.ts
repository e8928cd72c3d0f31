/**
 * The consistency gate of a processing cycle (docs/behaviour/processing.md#cause-order, docs/behaviour/watching.md#consistency): change-detecting
 * handlers run only on a state that already includes our own last patch. After a PATCH, the
 * worker awaits the patched resource version until a deadline (`consistencyTime`, i.e. the
 * patch time plus `persistence.consistencyTimeout`); events arriving before it are stale.
 *
 * - No changing cause (none registered, stealth mode, or a finalizer-only cycle) ⇒ no gate.
 * - No version awaited, or the cause is `gone` ⇒ consistent upfront.
 * - Otherwise, with nothing patched in this cycle yet ⇒ wait until the deadline, interrupted by
 *   any new event: consistent only if the whole wait elapsed ({@link afterWait}).
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
  /** Skip the changing handlers this cycle. */
  | { readonly _tag: "Inconsistent" };

const NOT_REQUIRED: Gate = { _tag: "NotRequired" };
const CONSISTENT: Gate = { _tag: "Consistent" };
const INCONSISTENT: Gate = { _tag: "Inconsistent" };

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
 * The gate after a {@link gate} `Wait`: consistent only if the whole wait elapsed (the awaited
 * version is assumed to be there), inconsistent if a new event cut it short (it will be
 * processed next).
 *
 * @example
 * ```ts
 * import { ConsistencyGate } from "@kopf/causes";
 * ConsistencyGate.afterWait({ sleptFully: false }); // { _tag: "Inconsistent" }
 * ```
 */
export const afterWait = (outcome: { readonly sleptFully: boolean }): Gate =>
  outcome.sleptFully ? CONSISTENT : INCONSISTENT;

/**
 * Whether to add or remove our finalizer in a processing cycle (docs/behaviour/processing.md#cause-order steps 5 and 8), as
 * data: the action, the debug line Kopf logs for it, and whether the change-detecting handlers
 * are skipped this cycle (a cycle that adds or removes the finalizer only patches it).
 *
 * - Step 5 ({@link decide}): the deletion must be blocked when a matching daemon or timer that
 *   is not stopped forever, or a prematching non-optional `on.delete` handler, requires the
 *   finalizer (the registry's `Matching.requiresFinalizer` says so). Blocking is needed and the
 *   finalizer is absent and no deletion is ongoing ⇒ add; blocking is not needed and the
 *   finalizer is present ⇒ remove (even on a `DELETED` event, as in Kopf: the runtime never
 *   applies patches for those).
 * - Step 8 ({@link decideRelease}): after the handlers ran, an object being deleted (but not yet
 *   gone) whose finalizer is still present and which has nothing left to wait for is released.
 */
import { Finalizers, type PatchFn, type RawBody, type RawEventType } from "@kopf/structs";

// The structs accessors read any value as a body: malformed metadata counts as absent.
const isDeletionOngoing = (body: unknown): boolean => Finalizers.isDeletionOngoing(body as RawBody);
const isDeletionBlocked = (body: unknown, finalizer: string): boolean =>
  Finalizers.isDeletionBlocked(body as RawBody, finalizer);

/** Kopf's debug line when the finalizer is added. */
export const ADDING_MESSAGE = "Adding the finalizer, thus preventing the actual deletion.";
/** Kopf's debug line when no handler requires the finalizer any more. */
export const REMOVING_UNNEEDED_MESSAGE = "Removing the finalizer, as there are no handlers requiring it.";
/** Kopf's debug line when a deleted object is released after its handlers. */
export const RELEASING_MESSAGE = "Removing the finalizer, thus allowing the actual deletion.";

/** What to do with the finalizer. */
export type FinalizerDecision =
  | { readonly _tag: "Add"; readonly message: string; readonly skipsChangingHandlers: true }
  | { readonly _tag: "Remove"; readonly message: string; readonly skipsChangingHandlers: boolean }
  | { readonly _tag: "Keep"; readonly skipsChangingHandlers: false };

/** The inputs of step 5. */
export interface BlockingInput {
  /** The object (any JSON; malformed metadata counts as absent). */
  readonly body: unknown;
  /** Our finalizer (`settings.persistence.finalizer`). */
  readonly finalizer: string;
  /**
   * Something must run at the end of the object's life: a matching daemon or timer that is not
   * stopped forever, or a prematching non-optional `on.delete` handler (the registry's
   * `Matching.requiresFinalizer`).
   */
  readonly mustBlock: boolean;
}

/** The inputs of step 8. */
export interface ReleaseInput {
  /** The event's type; a `DELETED` object is gone and never released (its last state shows the finalizer). */
  readonly type: RawEventType | null;
  readonly body: unknown;
  readonly finalizer: string;
  /** Delays still requested by daemons, timers and changing handlers in this cycle. */
  readonly delays: ReadonlyArray<number>;
}

/** Leave the finalizer as it is. */
export const KEEP: FinalizerDecision = { _tag: "Keep", skipsChangingHandlers: false };

/**
 * Step 5: add the finalizer when it is needed and absent (and no deletion is ongoing); remove it
 * when present but not needed. Either way the change-detecting handlers skip this cycle.
 *
 * @example
 * ```ts
 * import { FinalizerDecision } from "@kopf/causes";
 * FinalizerDecision.decide({
 *   body: { metadata: {} },
 *   finalizer: "kopf.zalando.org/KopfFinalizerMarker",
 *   mustBlock: true,
 * }); // { _tag: "Add", message: "Adding the finalizer, …", skipsChangingHandlers: true }
 * ```
 */
export const decide = (input: BlockingInput): FinalizerDecision => {
  const blocked = isDeletionBlocked(input.body, input.finalizer);
  const needed = input.mustBlock;
  if (needed && !blocked && !isDeletionOngoing(input.body)) {
    return { _tag: "Add", message: ADDING_MESSAGE, skipsChangingHandlers: true };
  }
  if (!needed && blocked) {
    return { _tag: "Remove", message: REMOVING_UNNEEDED_MESSAGE, skipsChangingHandlers: true };
  }
  return KEEP;
};

/**
 * Step 8: release an object being deleted once nothing is left to wait for.
 *
 * @example
 * ```ts
 * import { FinalizerDecision } from "@kopf/causes";
 * FinalizerDecision.decideRelease({
 *   type: "MODIFIED",
 *   body: { metadata: { deletionTimestamp: "2020-01-01T00:00:00Z", finalizers: ["fin"] } },
 *   finalizer: "fin",
 *   delays: [],
 * }); // { _tag: "Remove", message: "Removing the finalizer, thus allowing the actual deletion.", … }
 * ```
 */
export const decideRelease = (input: ReleaseInput): FinalizerDecision =>
  input.type !== "DELETED" &&
  input.delays.length === 0 &&
  isDeletionOngoing(input.body) &&
  isDeletionBlocked(input.body, input.finalizer)
    ? { _tag: "Remove", message: RELEASING_MESSAGE, skipsChangingHandlers: false }
    : KEEP;

/**
 * The patch function that carries out a decision (`Finalizers.blockDeletion`/`allowDeletion`),
 * or `undefined` for `Keep`. The runtime appends it to the cycle's patch (it becomes a JSON
 * patch guarded by the resource version).
 *
 * @example
 * ```ts
 * import { FinalizerDecision } from "@kopf/causes";
 * const fn = FinalizerDecision.toPatchFn(decision, settings.persistence.finalizer);
 * if (fn !== undefined) patch.fns.push(fn);
 * ```
 */
export const toPatchFn = (decision: FinalizerDecision, finalizer: string): PatchFn | undefined => {
  switch (decision._tag) {
    case "Add":
      return Finalizers.blockDeletion(finalizer);
    case "Remove":
      return Finalizers.allowDeletion(finalizer);
    case "Keep":
      return undefined;
  }
};

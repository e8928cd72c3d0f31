/**
 * The decisions of one processing cycle as pure values: the runtime performs the effects (the
 * indexing, the `on.event` handlers, the spawning of daemons and timers, the changing handlers,
 * the patch) and asks this module what to do between them, so the load-bearing order lives in one
 * place and each step's result is a value, not a mutation.
 *
 * 1. {@link plan}, once the `on.event` handlers and the spawning engine have run: the finalizer
 *    operation (adding or removing it skips the changing handlers this cycle), the consistency
 *    gate (change-detecting handlers run only on a state that includes our own last patch), and
 *    what the changing step does when the gate lets it.
 * 2. {@link afterWait}, when the gate asked to wait for our own patch's echo.
 * 3. {@link conclude}, once the changing handlers ran: whether the diff-base is stored and the
 *    object's memory marked fully handled, whether a deleted object is released, and whether the
 *    patch is applied at all (never for a `DELETED` event).
 *
 * Invariants (property-tested): the finalizer is never removed while a changing handler is
 * pending; at most one finalizer operation per cycle; no changing handler runs on an
 * inconsistent state or in a cycle that changes the finalizer.
 */
import type { Reason } from "@kopf/registry";
import type { RawBody, RawEventType } from "@kopf/structs";
import * as ChangeCause from "./ChangeCause.ts";
import * as ConsistencyGate from "./ConsistencyGate.ts";
import * as FinalizerDecision from "./FinalizerDecision.ts";

/** What the runtime knows when it plans the changing step. */
export interface Facts {
  /** The event's type (`null` for an object seen by the initial listing). */
  readonly type: RawEventType | null;
  readonly body: RawBody;
  /** Our finalizer (`settings.persistence.finalizer`). */
  readonly finalizer: string;
  /** Whether something must run at the end of the object's life (`Matching.requiresFinalizer`). */
  readonly mustBlock: boolean;
  /** The reason of the changing cause, `undefined` without one (no handlers, or stealth mode). */
  readonly reason: Reason | undefined;
  /** When our own last patch's echo is assumed to have arrived; `undefined` when none is awaited. */
  readonly consistencyTime: number | undefined;
  /** Whether the cycle's patch is empty so far (after `on.event` results and carried functions). */
  readonly patchEmpty: boolean;
  /** Whether the patch carried over from the previous cycle was empty. */
  readonly patchInitiallyEmpty: boolean;
}

/** What the changing step does once the gate lets it. */
export type Changing =
  | { readonly _tag: "None" }
  /** A cause with nothing to run (`gone`, `free`, `noop`): Kopf's line about it. */
  | { readonly _tag: "Log"; readonly message: string }
  | { readonly _tag: "RunHandlers"; readonly reason: Reason };

/** The plan of a cycle's changing step. */
export interface Plan {
  /** The finalizer operation before the handlers (`Add`/`Remove` skip the changing handlers). */
  readonly blocking: FinalizerDecision.FinalizerDecision;
  readonly gate: ConsistencyGate.Gate;
  readonly changing: Changing;
}

const NONE: Changing = { _tag: "None" };

/**
 * Plans the changing step.
 *
 * @example
 * ```ts
 * import { CyclePlan } from "@kopf/causes";
 * const plan = CyclePlan.plan({ type: "ADDED", body, finalizer, mustBlock: true, reason: "create",
 *   consistencyTime: undefined, patchEmpty: true, patchInitiallyEmpty: true });
 * plan.blocking._tag // "Add": the finalizer first, the create handlers in the next cycle
 * ```
 */
export const plan = (facts: Facts): Plan => {
  const blocking = FinalizerDecision.decide({
    body: facts.body,
    finalizer: facts.finalizer,
    mustBlock: facts.mustBlock,
  });
  const reason = blocking._tag === "Keep" ? facts.reason : undefined;
  const gate = ConsistencyGate.gate({
    reason,
    consistencyTime: facts.consistencyTime,
    patchEmpty: facts.patchEmpty && blocking._tag === "Keep",
    patchInitiallyEmpty: facts.patchInitiallyEmpty,
  });
  if (reason === undefined) return { blocking, gate, changing: NONE };
  const message = ChangeCause.reactorMessage(reason);
  return {
    blocking,
    gate,
    changing: message === undefined ? { _tag: "RunHandlers", reason } : { _tag: "Log", message },
  };
};

/**
 * The plan after waiting for our own patch's echo: consistent only if the wait elapsed fully.
 *
 * @example
 * ```ts
 * const next = CyclePlan.afterWait(plan, { sleptFully: false }) // next.gate._tag === "Inconsistent"
 * ```
 */
export const afterWait = (planned: Plan, outcome: { readonly sleptFully: boolean }): Plan => ({
  ...planned,
  gate: ConsistencyGate.afterWait(outcome),
});

/** What the changing step does in this cycle: nothing unless the gate lets it. */
export const changingStep = (planned: Plan): Changing =>
  planned.gate._tag === "Consistent" ? planned.changing : NONE;

/** How the changing handlers ended in this cycle. */
export type Handled =
  /** No changing handler ran (none planned, a `Log` cause, or an inconsistent state). */
  | "NotRun"
  /** Every handler of the cause is done. */
  | "Done"
  /** Nothing was left to run (all done earlier, or none matched). */
  | "Skipped"
  /** Some handler is still to run (retrying, sleeping, or waiting for its turn). */
  | "Pending";

/** What the cycle decided after its handlers. */
export interface Conclusion {
  /** Store the diff-base (the last-handled configuration): the cause is fully handled. */
  readonly storeDiffBase: boolean;
  /** Mark the object's memory as fully handled once (a memory change, as a value). */
  readonly markFullyHandled: boolean;
  /** Release a deleted object (`Remove`) or not (`Keep`). */
  readonly release: FinalizerDecision.FinalizerDecision;
  /** Whether to apply the patch and sleep for the delays (never for a `DELETED` event). */
  readonly apply: boolean;
}

/**
 * Concludes a cycle from its plan and what its handlers and engines left.
 *
 * @example
 * ```ts
 * const conclusion = CyclePlan.conclude(facts, plan, { handled: "Done", delays: [] })
 * conclusion.release._tag // "Remove" for a deleted object whose delete handlers are all done
 * ```
 */
export const conclude = (
  facts: Facts,
  planned: Plan,
  outcomes: { readonly handled: Handled; readonly delays: ReadonlyArray<number> },
): Conclusion => {
  const finished = outcomes.handled === "Done" || outcomes.handled === "Skipped";
  const mayRelease =
    planned.blocking._tag === "Keep" &&
    planned.gate._tag !== "Inconsistent" &&
    outcomes.handled !== "Pending";
  const release = mayRelease
    ? FinalizerDecision.decideRelease({
        type: facts.type,
        body: facts.body,
        finalizer: facts.finalizer,
        delays: outcomes.delays,
      })
    : FinalizerDecision.KEEP;
  return {
    storeDiffBase: finished,
    markFullyHandled: finished,
    release,
    apply: facts.type !== "DELETED",
  };
};

/**
 * One processing cycle as a pure state machine: {@link start} and {@link advance} say, one
 * {@link Instruction} at a time, everything the cycle does, and the runtime's interpreter
 * (`Processing`) performs each instruction and reports what it observed. The load-bearing order
 * lives here, not in the interpreter's control flow:
 *
 * index → claim (scaled out) → select the handlers → `on.event` handlers → daemons and timers →
 * finalizer added or removed → consistency gate (wait for our own patch's echo; re-read the
 * object if it does not come in time) → changing
 * handlers (or the line of a cause with nothing to run) → diff-base and memory → release of a
 * deleted object → fence (scaled out) → send the patch and handle its outcome (a conflict
 * carried over, an invalid patch reported as an error and a Warning event) → sleep for the
 * earliest delay and touch, or not → remember what was not applied.
 *
 * Handlers are effects: instructions carry their selection and causes (`CycleSelection`, which
 * the interpreter makes on the `Select` instruction, once the object is indexed and claimed), and
 * the interpreter reports their outcomes, which the next step folds into the plan (the delays,
 * whether the cause is fully handled). Memory changes, finalizer operations, events to post,
 * log lines and the sleep for the earliest delay are values of the instructions.
 *
 * Invariants (property-tested): the finalizer is never removed while a changing handler is
 * pending; at most one finalizer operation and at most one patch per cycle; no changing handler
 * runs on an inconsistent state or in a cycle that changes the finalizer; nothing is applied for
 * a `DELETED` event.
 */
import type { ChangingHandler, SpawningHandler, WatchingHandler } from "@kopf/registry";
import type { StorageDecodeError } from "@kopf/storage";
import type { Json, Patch, RawBody, RawEventType } from "@kopf/structs";
import type * as ChangeCause from "./ChangeCause.ts";
import type * as CycleSelection from "./CycleSelection.ts";
import * as FinalizerDecision from "./FinalizerDecision.ts";
import * as ApplySteps from "./internal/applySteps.ts";
import type * as CycleState from "./internal/cycleState.ts";
import * as CycleSteps from "./internal/cycleSteps.ts";
import type * as SpawningCause from "./SpawningCause.ts";
import type * as WatchingCause from "./WatchingCause.ts";

/** What the runtime knows when a cycle starts. */
export interface Facts {
  /** The event's type (`null` for an object seen by the initial listing). */
  readonly type: RawEventType | null;
  readonly body: RawBody;
  /** Our finalizer (`settings.persistence.finalizer`). */
  readonly finalizer: string;
  /** When our own last patch's echo is assumed to have arrived; `undefined` when none is awaited. */
  readonly consistencyTime: number | undefined;
  /** Whether the patch carried over from the previous cycle (after a conflict) is empty. */
  readonly patchInitiallyEmpty: boolean;
  /** The engine seams plugged in: indexing, and ownership of objects by replicas. */
  readonly engines: { readonly indexing: boolean; readonly ownership: boolean };
}

/** A change of the object's memory between its events. */
export type MemoryChange =
  /** The object was fully handled once: no longer `initial`. */
  | { readonly _tag: "MarkFullyHandled" }
  /** What could not be applied (after a conflict) is retried next cycle; `undefined` forgets it. */
  | { readonly _tag: "Carry"; readonly pending: Patch.Patch | undefined };

/** How a cycle ended. */
export type Outcome =
  /** Another replica handles the object (it was indexed anyway). */
  | { readonly _tag: "NotOwned" }
  /** The ownership was lost during the cycle: nothing applied. */
  | { readonly _tag: "Fenced" }
  /** A `DELETED` event: the object is gone, nothing to apply. */
  | { readonly _tag: "Gone" }
  /**
   * The patch was applied (or nothing needed it); the version to await as its echo, if any
   * (`null`: a re-read found the processed state current, so nothing is awaited any more).
   */
  | { readonly _tag: "Applied"; readonly resourceVersion: string | null | undefined };

/** One thing the cycle does. */
export type Instruction =
  /** Index the object and wait until the whole operator is indexed. */
  | { readonly _tag: "Index" }
  /** Claim the object for this replica. */
  | { readonly _tag: "Claim" }
  /** Build the handlers' contexts and select the handlers and their causes (`CycleSelection.select`). */
  | { readonly _tag: "Select" }
  | {
      readonly _tag: "RunWatching";
      readonly cause: WatchingCause.WatchingCause;
      readonly handlers: ReadonlyArray<WatchingHandler>;
    }
  /** The stored diff-base cannot be decoded: the cycle fails (and is retried by its throttler). */
  | { readonly _tag: "Fail"; readonly error: StorageDecodeError }
  /** Spawn, keep or stop the daemons and timers. */
  | {
      readonly _tag: "Spawn";
      readonly cause: SpawningCause.SpawningCause;
      readonly handlers: ReadonlyArray<SpawningHandler>;
    }
  /** Add or remove our finalizer in the cycle's patch, with the decision's debug line. */
  | { readonly _tag: "Finalizer"; readonly decision: FinalizerDecision.FinalizerDecision }
  /** Sleep until `until` (the runtime's clock) or the object's next event. */
  | { readonly _tag: "Wait"; readonly until: number }
  /** Re-read the object: our own patch's version did not come in time. */
  | { readonly _tag: "Refresh" }
  | {
      readonly _tag: "Log";
      readonly level: "Debug" | "Warning" | "Error";
      readonly message: string;
      /** Kept out of the events bridge (another instruction posts the event, if any). */
      readonly local?: boolean;
    }
  | {
      readonly _tag: "RunChanging";
      readonly cause: ChangeCause.ChangeCause;
      /** The handlers selected for the cause, in registration order. */
      readonly handlers: ReadonlyArray<ChangingHandler>;
      /** All changing handlers of the kind: whose progress is loaded and purged. */
      readonly owned: ReadonlyArray<ChangingHandler>;
    }
  /** Store the last-handled configuration into the patch if it changed. */
  | {
      readonly _tag: "StoreDiffBase";
      readonly old: Json.JsonObject | undefined;
      readonly new: Json.JsonObject;
    }
  | { readonly _tag: "Remember"; readonly change: MemoryChange }
  /** Check that this replica still owns the object. */
  | { readonly _tag: "Fence" }
  /** Send the cycle's patch, if it holds anything (clearing the touch-dummy with it). */
  | { readonly _tag: "Patch" }
  /** Post an event on the object. */
  | { readonly _tag: "Post"; readonly event: Event }
  /** Sleep for the delayed handlers, cut short by the object's next event. */
  | { readonly _tag: "Sleep"; readonly seconds: number }
  /** Touch the object (the touch-dummy annotation) to get a new event after a sleep. */
  | { readonly _tag: "Touch" }
  | { readonly _tag: "Finish"; readonly outcome: Outcome };

/** What the interpreter observed when performing an instruction. */
export type Observation =
  /** An instruction with nothing to report was performed. */
  | { readonly _tag: "Performed" }
  | { readonly _tag: "Claimed"; readonly claimed: boolean }
  | { readonly _tag: "Selected"; readonly selection: CycleSelection.Selection }
  /** The `on.event` handlers ran; whether the patch is still empty. */
  | { readonly _tag: "Watched"; readonly patchEmpty: boolean }
  | {
      readonly _tag: "Spawned";
      readonly delays: ReadonlyArray<number>;
      /** Daemons and timers stopped forever for this object: they no longer need the finalizer. */
      readonly excluded: ReadonlySet<string>;
      readonly patchEmpty: boolean;
    }
  | { readonly _tag: "Waited"; readonly sleptFully: boolean }
  /** The object's version on the API server now; `undefined` when the re-read failed. */
  | { readonly _tag: "Refreshed"; readonly resourceVersion: string | undefined }
  /** The changing handlers ran once: all done, nothing to run, and their delays. */
  | {
      readonly _tag: "Changed";
      readonly done: boolean;
      readonly skipped: boolean;
      readonly delays: ReadonlyArray<number>;
    }
  | { readonly _tag: "Held"; readonly holds: boolean }
  | { readonly _tag: "Patched"; readonly outcome: Patched }
  | { readonly _tag: "Slept"; readonly fully: boolean; readonly left: number }
  /** The touch was applied: the version to await, if any. */
  | { readonly _tag: "Touched"; readonly resourceVersion: string | undefined };

/** What sending the patch did. */
export type Patched =
  /** The patch was empty: nothing sent. */
  | { readonly _tag: "NothingToPatch" }
  | { readonly _tag: "Applied"; readonly resourceVersion: string | undefined }
  /** A newer object was met: the patch functions are pending, for the next cycle. */
  | { readonly _tag: "Conflict"; readonly resourceVersion: string | undefined; readonly pending: Patch.Patch }
  /** The API server rejected the patch as invalid: its message and the rejected payload (JSON). */
  | {
      readonly _tag: "Invalid";
      readonly resourceVersion: string | undefined;
      readonly message: string;
      readonly payload: string;
    }
  /** The object does not exist anymore. */
  | { readonly _tag: "Gone" };

/** An event to post on the object. */
export interface Event {
  readonly type: "Warning";
  readonly reason: string;
  readonly message: string;
}

/** The cycle's state between two instructions. */
export type State = CycleState.State;

/** The next instruction and the state to advance from once it is performed. */
export interface Step {
  readonly state: State;
  readonly instruction: Instruction;
}

/**
 * The first instruction of a cycle.
 *
 * @example
 * ```ts
 * import { CyclePlan } from "@kopf/causes";
 * let step = CyclePlan.start(facts);
 * while (step.instruction._tag !== "Finish") step = CyclePlan.advance(step.state, yield* perform(step.instruction));
 * ```
 */
export const start = (facts: Facts): Step =>
  CycleSteps.index({
    facts,
    phase: "Start",
    selection: undefined,
    patchEmpty: facts.patchInitiallyEmpty,
    delays: [],
    excluded: new Set(),
    blocking: FinalizerDecision.KEEP,
    gate: { _tag: "NotRequired" },
    handled: "NotRun",
    ran: false,
    release: FinalizerDecision.KEEP,
    sent: false,
    resourceVersion: undefined,
    pending: undefined,
    invalid: undefined,
    outcome: undefined,
  });

/** Kopf's `WAITING_KEEPALIVE_INTERVAL`: the longest sleep before a re-evaluating touch. */
export const KEEPALIVE_SECONDS = ApplySteps.KEEPALIVE_SECONDS;

/** Reason of the Warning event posted about a patch the API server rejected as invalid. */
export const INVALID_PATCH_REASON = ApplySteps.INVALID_PATCH_REASON;

/**
 * The next instruction once the current one was performed. An observation of another kind than
 * the instruction asked for counts as its neutral answer (nothing claimed, nothing slept, …).
 *
 * @example
 * ```ts
 * const next = CyclePlan.advance(step.state, { _tag: "Waited", sleptFully: false });
 * ```
 */
export const advance = (state: State, observation: Observation): Step =>
  CycleSteps.advance(state, observation);

/** Whether the instruction ends the cycle: `Finish`, or `Fail` (a failed cycle stays failed). */
export const isLast = (instruction: Instruction): boolean =>
  instruction._tag === "Finish" || instruction._tag === "Fail";

/**
 * The instructions of a whole cycle, each answered by `answer` in turn (for tests and traces).
 *
 * @example
 * ```ts
 * CyclePlan.trace(facts, () => ({ _tag: "Performed" })).map((i) => i._tag) // ["RunChanging", …, "Finish"]
 * ```
 */
export const trace = (
  facts: Facts,
  answer: (instruction: Instruction) => Observation,
): ReadonlyArray<Instruction> => {
  const instructions: Array<Instruction> = [];
  let step = start(facts);
  while (!isLast(step.instruction)) {
    instructions.push(step.instruction);
    step = advance(step.state, answer(step.instruction));
  }
  instructions.push(step.instruction);
  return instructions;
};

/**
 * The state of `CyclePlan`'s state machine between two instructions, and the two ways a step
 * ends: asking for an instruction ({@link at}) or finishing the cycle ({@link finish}).
 */

import type { Patch } from "@kopf/structs";
import type * as ConsistencyGate from "../ConsistencyGate.ts";
import type { Facts, Instruction, Outcome, Step } from "../CyclePlan.ts";
import type * as CycleSelection from "../CycleSelection.ts";
import type * as FinalizerDecision from "../FinalizerDecision.ts";

/** The step whose observation the state awaits. */
export type Phase =
  | "Start"
  | "Index"
  | "Claim"
  | "Select"
  | "Watch"
  | "Failed"
  | "Spawn"
  | "Block"
  | "Wait"
  | "Refresh"
  | "LogCause"
  | "Change"
  | "StoreDiffBase"
  | "MarkHandled"
  | "Release"
  | "Fence"
  | "LogFenced"
  | "Patch"
  | "LogConflict"
  | "LogInvalid"
  | "PostInvalid"
  | "LogSleep"
  | "Sleep"
  | "LogThenCarry"
  | "Touch"
  | "Carry"
  | "Finished";

/** How the changing handlers ended in this cycle. */
export type Handled = "NotRun" | "Done" | "Skipped" | "Pending";

/** What the cycle has learnt so far. */
export interface State {
  readonly facts: Facts;
  readonly phase: Phase;
  /** The handlers and their causes, once selected. */
  readonly selection: CycleSelection.Selection | undefined;
  /** Whether the cycle's patch is empty so far (after carried functions and `on.event` results). */
  readonly patchEmpty: boolean;
  /** Seconds until the daemons, timers and changing handlers want the object again. */
  readonly delays: ReadonlyArray<number>;
  readonly excluded: ReadonlySet<string>;
  /** The finalizer operation before the handlers (`Add`/`Remove` skip the changing handlers). */
  readonly blocking: FinalizerDecision.FinalizerDecision;
  readonly gate: ConsistencyGate.Gate;
  readonly handled: Handled;
  /** Whether a changing cause was handled (its handlers ran, or its line was logged). */
  readonly ran: boolean;
  /** The release of a deleted object after its handlers. */
  readonly release: FinalizerDecision.FinalizerDecision;
  /** Whether the patch was sent (it was not empty). */
  readonly sent: boolean;
  /** The version to await as our own change's echo (`null`: nothing is awaited any more). */
  readonly resourceVersion: string | null | undefined;
  /** The patch functions a conflict left, for the next cycle. */
  readonly pending: Patch.Patch | undefined;
  /** The API server's message about an invalid patch, for its Warning event. */
  readonly invalid: string | undefined;
  readonly outcome: Outcome | undefined;
}

/** Asks for an instruction; its observation is awaited in the given phase. */
export const at = (state: State, phase: Phase, instruction: Instruction): Step => ({
  state: { ...state, phase },
  instruction,
});

/** Ends the cycle with its outcome. */
export const finish = (state: State, outcome: Outcome): Step =>
  at({ ...state, outcome }, "Finished", { _tag: "Finish", outcome });

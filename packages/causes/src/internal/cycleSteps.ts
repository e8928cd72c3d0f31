/**
 * The steps of `CyclePlan`'s state machine: each step either asks for one instruction (and
 * names the phase whose observation it awaits) or passes on to the next step when it has
 * nothing to do. The order of the steps is the order of a cycle.
 */
import { Matching } from "@kopf/registry";
import { Body } from "@kopf/structs";
import * as Result from "effect/Result";
import * as ChangeCause from "../ChangeCause.ts";
import * as ConsistencyGate from "../ConsistencyGate.ts";
import type { Observation, Step } from "../CyclePlan.ts";
import * as CycleSelection from "../CycleSelection.ts";
import * as FinalizerDecision from "../FinalizerDecision.ts";
import * as ApplySteps from "./applySteps.ts";
import { at, finish, type Handled, type State } from "./cycleState.ts";

/** Index the object first, for every event (if an indexing engine is plugged in). */
export const index = (s: State): Step =>
  s.facts.engines.indexing ? at(s, "Index", { _tag: "Index" }) : claim(s);

const claim = (s: State): Step => (s.facts.engines.ownership ? at(s, "Claim", { _tag: "Claim" }) : select(s));

const select = (s: State): Step => at(s, "Select", { _tag: "Select" });

const watch = (s: State): Step => {
  const watching = s.selection?.watching;
  return watching !== undefined && watching.handlers.length > 0
    ? at(s, "Watch", { _tag: "RunWatching", ...watching })
    : decode(s);
};

const decode = (s: State): Step => {
  const inputs = s.selection?.inputs;
  return inputs !== undefined && Result.isFailure(inputs)
    ? at(s, "Failed", { _tag: "Fail", error: inputs.failure })
    : spawn(s);
};

const spawn = (s: State): Step => {
  const spawning = s.selection?.spawning;
  return spawning === undefined ? block(s) : at(s, "Spawn", { _tag: "Spawn", ...spawning });
};

const block = (s: State): Step => {
  const { facts } = s;
  const blocking = FinalizerDecision.decide({
    body: facts.body,
    finalizer: facts.finalizer,
    mustBlock: s.selection !== undefined && CycleSelection.requiresFinalizer(s.selection, s.excluded),
  });
  const reason = blocking._tag === "Keep" ? s.selection?.changing?.cause.reason : undefined;
  const gate = ConsistencyGate.gate({
    reason,
    consistencyTime: facts.consistencyTime,
    patchEmpty: s.patchEmpty && blocking._tag === "Keep",
    patchInitiallyEmpty: facts.patchInitiallyEmpty,
  });
  const next = { ...s, blocking, gate };
  return blocking._tag === "Keep"
    ? gateStep(next)
    : at(next, "Block", { _tag: "Finalizer", decision: blocking });
};

const gateStep = (s: State): Step =>
  s.gate._tag === "Wait"
    ? at(s, "Wait", { _tag: "Wait", until: s.gate.until })
    : s.gate._tag === "Refresh"
      ? at(s, "Refresh", { _tag: "Refresh" })
      : change(s);

const change = (s: State): Step => {
  const changing = s.selection?.changing;
  if (s.gate._tag !== "Consistent" || changing === undefined) return conclude(s);
  const { cause, owned } = changing;
  const message = ChangeCause.reactorMessage(cause.reason);
  if (message !== undefined)
    return at({ ...s, ran: true }, "LogCause", { _tag: "Log", level: "Debug", message });
  const handlers = Matching.changingHandlers(owned, cause);
  return at({ ...s, ran: true }, "Change", { _tag: "RunChanging", cause, handlers, owned });
};

const finished = (s: State): boolean => s.handled === "Done" || s.handled === "Skipped";

const conclude = (s: State): Step => {
  const inputs = s.selection?.inputs;
  return finished(s) && inputs !== undefined && Result.isSuccess(inputs)
    ? at(s, "StoreDiffBase", { _tag: "StoreDiffBase", old: inputs.success.old, new: inputs.success.new })
    : markHandled(s);
};

const markHandled = (s: State): Step =>
  finished(s) ? at(s, "MarkHandled", { _tag: "Remember", change: { _tag: "MarkFullyHandled" } }) : release(s);

const release = (s: State): Step => {
  const { facts } = s;
  const mayRelease = s.blocking._tag === "Keep" && s.gate._tag !== "Inconsistent" && s.handled !== "Pending";
  const decision = mayRelease
    ? FinalizerDecision.decideRelease({
        type: facts.type,
        body: facts.body,
        finalizer: facts.finalizer,
        delays: s.delays,
      })
    : FinalizerDecision.KEEP;
  const next = { ...s, release: decision };
  return decision._tag === "Remove" ? at(next, "Release", { _tag: "Finalizer", decision }) : released(next);
};

const released = (s: State): Step => {
  if (s.facts.type === "DELETED") return finish(s, { _tag: "Gone" });
  return s.facts.engines.ownership ? at(s, "Fence", { _tag: "Fence" }) : ApplySteps.patch(s);
};

/** The fencing line: the lease was not renewed in time, another replica may own the object by now. */
export const FENCED_MESSAGE = "Ownership lost during the handling; the outcome is not stored.";

/** Folds an observation into the state and steps on. */
export const advance = (s: State, o: Observation): Step => {
  switch (s.phase) {
    case "Start":
      return index(s);
    case "Index":
      return claim(s);
    case "Claim":
      return o._tag === "Claimed" && o.claimed ? select(s) : finish(s, { _tag: "NotOwned" });
    case "Select":
      // The plan goes on only with a selection.
      return o._tag === "Selected" ? watch({ ...s, selection: o.selection }) : select(s);
    case "Watch":
      return decode(o._tag === "Watched" ? { ...s, patchEmpty: o.patchEmpty } : s);
    case "Failed":
      return decode(s);
    case "Spawn":
      return block(
        o._tag === "Spawned"
          ? { ...s, delays: [...s.delays, ...o.delays], excluded: o.excluded, patchEmpty: o.patchEmpty }
          : s,
      );
    case "Block":
      return gateStep(s);
    case "Wait":
      return gateStep({
        ...s,
        gate: ConsistencyGate.afterWait({ sleptFully: o._tag === "Waited" && o.sleptFully }),
      });
    case "Refresh": {
      const refreshed = ConsistencyGate.afterRefresh({
        processed: Body.resourceVersion(s.facts.body),
        current: o._tag === "Refreshed" ? o.resourceVersion : undefined,
      });
      return change({ ...s, gate: refreshed.gate, resourceVersion: refreshed.awaited });
    }
    case "LogCause":
      return conclude(s);
    case "Change":
      return conclude(
        o._tag === "Changed" ? { ...s, ...foldChanged(o), delays: [...s.delays, ...o.delays] } : s,
      );
    case "StoreDiffBase":
      return markHandled(s);
    case "MarkHandled":
      return release(s);
    case "Release":
      return released(s);
    case "Fence":
      return o._tag === "Held" && o.holds
        ? ApplySteps.patch(s)
        : at(s, "LogFenced", { _tag: "Log", level: "Warning", message: FENCED_MESSAGE });
    case "LogFenced":
      return finish(s, { _tag: "Fenced" });
    case "Patch":
      return ApplySteps.patched(s, o._tag === "Patched" ? o.outcome : { _tag: "NothingToPatch" });
    case "LogConflict":
      return ApplySteps.delayed(s);
    case "LogInvalid":
      return ApplySteps.postInvalid(s);
    case "PostInvalid":
      return ApplySteps.delayed(s);
    case "LogSleep":
      return ApplySteps.sleep(s);
    case "Sleep":
      return ApplySteps.awake(s, o._tag === "Slept" ? o : { fully: false, left: 0 });
    case "Touch":
      return ApplySteps.carry(
        o._tag === "Touched" && o.resourceVersion !== undefined
          ? { ...s, resourceVersion: o.resourceVersion }
          : s,
      );
    case "LogThenCarry":
      return ApplySteps.carry(s);
    case "Carry":
      return ApplySteps.applied(s);
    case "Finished":
      return s.outcome === undefined ? ApplySteps.applied(s) : finish(s, s.outcome);
  }
};

/** The changing handlers' outcome as the cycle sees it. */
const foldChanged = (o: {
  readonly done: boolean;
  readonly skipped: boolean;
}): { readonly handled: Handled } => ({
  handled: o.done ? "Done" : o.skipped ? "Skipped" : "Pending",
});

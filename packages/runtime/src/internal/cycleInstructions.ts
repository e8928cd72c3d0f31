/**
 * How the processing interpreter performs the instructions of one cycle's plan (`CyclePlan`):
 * {@link Performer.now} performs, synchronously and without any effect, the instructions that
 * need none (the selection, the memory, the diff-base, an empty patch, a log line below the least
 * level, a consistency wait that a newer queued event cuts short, the finish) — the whole of
 * a cycle with nothing to do, such as the echo of the operator's own patch — and
 * {@link Performer.perform} performs the others (engines, handlers, requests, sleeps, log lines)
 * as effects (`cycleEffects.ts`). Both report what they observed, for the plan to step on.
 */
import { CyclePlan, CycleSelection, ResourceMemory } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { DiffBaseStorage } from "@kopf/storage";
import type { Patch, RawEvent, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as LogLevel from "effect/LogLevel";
import * as References from "effect/References";
import type * as Engines from "../Engines.ts";
import * as Logging from "../Logging.ts";
import type * as ObjectQueues from "../ObjectQueues.ts";
import * as Pressure from "../Pressure.ts";
import { type CycleError, PERFORMED, performEffect } from "./cycleEffects.ts";

/** What the instructions of one cycle act on. */
export interface Cycle {
  readonly registry: Registry.Registry;
  readonly resource: Resource.Resource;
  readonly lifecycle: Lifecycle | undefined;
  readonly engines: Engines.Engines;
  readonly settings: OperatorSettings;
  /** The cycle's services (with the object's log annotation), for the handlers' loggers. */
  readonly services: Context.Context<never>;
  readonly event: RawEvent;
  readonly key: string;
  readonly memory: {
    causes: ResourceMemory.ResourceMemory;
    readonly memo: Memo;
    remaining: Patch.Patch | undefined;
  };
  readonly context: ObjectQueues.WorkerContext;
  readonly patch: Patch.Patch;
}

const WAIT_CUT_SHORT: CyclePlan.Observation = { _tag: "Waited", sleptFully: false };

/** The plan's log levels as Effect's. */
const LEVELS = { Debug: "Debug", Warning: "Warn", Error: "Error" } as const satisfies Record<
  Extract<CyclePlan.Instruction, { _tag: "Log" }>["level"],
  LogLevel.Severity
>;

/** The handlers' contexts (with the indices as they are after indexing) and the selection. */
const select = (cycle: Cycle): CyclePlan.Observation => {
  const { registry, resource, engines, settings, services, event, memory, patch } = cycle;
  const { finalizer, diffbaseStorage, progressStorage } = settings.persistence;
  return {
    _tag: "Selected",
    selection: CycleSelection.select({
      event,
      registry,
      resource,
      persistence: { finalizer, diffbaseStorage, progressStorage },
      memory: memory.causes,
      context: {
        resource,
        patch,
        logger: Logging.handlerLogger(services),
        memo: memory.memo,
        indices: engines.indices?.() ?? {},
      },
      // The `on.event` handlers' logger is local: its lines are never posted as events (Kopf's `LocalObjectLogger`).
      localLogger: () => Logging.handlerLogger(services, { [Logging.LOCAL]: true }),
      spawns: engines.spawning !== undefined,
    }),
  };
};

/** Performs an instruction that needs no effect; `undefined` for one that does. */
const performNow = (cycle: Cycle, instruction: CyclePlan.Instruction): CyclePlan.Observation | undefined => {
  const { memory, patch } = cycle;
  switch (instruction._tag) {
    case "Select":
      return select(cycle);
    case "StoreDiffBase":
      DiffBaseStorage.storeIfChanged(cycle.settings.persistence.diffbaseStorage, {
        body: cycle.event.object,
        patch,
        old: instruction.old,
        new: instruction.new,
      });
      return PERFORMED;
    case "Remember":
      if (instruction.change._tag === "MarkFullyHandled")
        memory.causes = ResourceMemory.markFullyHandled(memory.causes);
      else memory.remaining = instruction.change.pending;
      return PERFORMED;
    case "Patch":
      return patch.isEmpty() ? { _tag: "Patched", outcome: { _tag: "NothingToPatch" } } : undefined;
    case "Log":
      // A line below the least level is dropped by the loggers anyway: no effect is run for it.
      return LogLevel.isGreaterThan(
        Context.get(cycle.services, References.MinimumLogLevel),
        LEVELS[instruction.level],
      )
        ? PERFORMED
        : undefined;
    case "Wait": {
      // A newer event is queued already and the deadline is ahead: the sleep would end at once,
      // cut short, so no effect is run for it. (A deadline passed is a full wait: an effect, as
      // the object is then re-read.)
      const now = Context.get(cycle.services, Clock.Clock).currentTimeMillisUnsafe();
      const atOnce = Pressure.endsAtOnce(cycle.context.pressure, (instruction.until - now) / 1000);
      return atOnce?.fully === false ? WAIT_CUT_SHORT : undefined;
    }
    case "Finish":
      return PERFORMED;
    default:
      return undefined;
  }
};

export type { CycleError } from "./cycleEffects.ts";

/** The performer of one cycle's instructions. */
export interface Performer {
  /** Performs an instruction that needs no effect; `undefined` for one that does. */
  readonly now: (instruction: CyclePlan.Instruction) => CyclePlan.Observation | undefined;
  /** Performs an instruction as an effect. */
  readonly perform: (
    instruction: CyclePlan.Instruction,
  ) => Effect.Effect<CyclePlan.Observation, CycleError, KubeApi>;
  /** Whether this replica claimed the object in this cycle (to release it however the cycle ends). */
  readonly claimed: () => boolean;
}

/**
 * A performer for one cycle.
 *
 * @example
 * ```ts
 * const performer = CycleInstructions.make(cycle)
 * ```
 */
export const make = (cycle: Cycle): Performer => {
  const claims = { claimed: false };
  const now = (instruction: CyclePlan.Instruction) => performNow(cycle, instruction);
  return {
    now,
    perform: (instruction) => performEffect(cycle, claims, instruction, now),
    claimed: () => claims.claimed,
  };
};

/**
 * Runs a cycle's plan from `step` to its outcome with `performer`.
 *
 * @example
 * ```ts
 * const outcome = yield* run(make(cycle), CyclePlan.start(facts))
 * ```
 */
export const run = (
  performer: Performer,
  from: CyclePlan.Step,
): Effect.Effect<CyclePlan.Outcome, CycleError, KubeApi> => {
  let step = from;
  for (;;) {
    if (step.instruction._tag === "Finish") return Effect.succeed(step.instruction.outcome);
    const observed = performer.now(step.instruction);
    if (observed === undefined) {
      const { state } = step;
      return Effect.flatMap(performer.perform(step.instruction), (o) =>
        run(performer, CyclePlan.advance(state, o)),
      );
    }
    step = CyclePlan.advance(step.state, observed);
  }
};

/** Where {@link runNow} gave up: the first instruction of the plan that needs an effect. */
export interface NeedsEffect {
  readonly _tag: "NeedsEffect";
  readonly instruction: CyclePlan.Instruction;
  /**
   * Tries the rest of the plan at once again from that instruction, as {@link runNow} does, with
   * what was done up to it kept (its selection, the memory changes it will make at the end):
   * for when what stood in the way may need no effect any more (a newer event queued during a
   * wait). The performer's cycle must not have run meanwhile.
   */
  readonly again: () => CyclePlan.Outcome | NeedsEffect;
}

/**
 * Runs a cycle's plan from `step` to its outcome without any effect, if none of its instructions
 * needs one; otherwise, with nothing changed, the first instruction that does. The changes to the
 * object's memory are made only once the plan has finished, so a cycle given up on here runs
 * afresh with {@link run}, or goes on from where it stopped with {@link NeedsEffect.again}.
 *
 * @example
 * ```ts
 * const outcome = runNow(make(cycle), CyclePlan.start(facts)) // { _tag: "NeedsEffect", … }: run it as an effect
 * ```
 */
export const runNow = (performer: Performer, from: CyclePlan.Step): CyclePlan.Outcome | NeedsEffect =>
  runFrom(performer, from, []);

const runFrom = (
  performer: Performer,
  from: CyclePlan.Step,
  remembered: Array<CyclePlan.Instruction>,
): CyclePlan.Outcome | NeedsEffect => {
  let step = from;
  for (;;) {
    const { instruction } = step;
    if (instruction._tag === "Finish") {
      for (const change of remembered) performer.now(change);
      return instruction.outcome;
    }
    let observed: CyclePlan.Observation = PERFORMED;
    if (instruction._tag === "Remember") remembered.push(instruction);
    else {
      const now = performer.now(instruction);
      if (now === undefined) {
        const stopped = step;
        return {
          _tag: "NeedsEffect",
          instruction,
          again: () => runFrom(performer, stopped, remembered.slice()),
        };
      }
      observed = now;
    }
    step = CyclePlan.advance(step.state, observed);
  }
};

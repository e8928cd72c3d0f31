/**
 * The instructions of a cycle's plan (`CyclePlan`) that need an effect, performed as effects
 * (engines, handlers, requests, sleeps, log lines, events), each reporting what it observed for
 * the plan to step on. `cycleInstructions.ts` performs the others at once and runs the plan.
 */
import { type CyclePlan, FinalizerDecision } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { State, StorageDecodeError } from "@kopf/storage";
import type { Patch } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Applying from "../Applying.ts";
import * as Execution from "../execution/Execution.ts";
import * as Logging from "../Logging.ts";
import * as ObjectQueues from "../ObjectQueues.ts";
import type * as PatchApplier from "../PatchApplier.ts";
import * as Posting from "../Posting.ts";
import * as Pressure from "../Pressure.ts";
import * as Refreshing from "../Refreshing.ts";
import type { Cycle } from "./cycleInstructions.ts";

/** What an instruction with nothing to report observed. */
export const PERFORMED: CyclePlan.Observation = { _tag: "Performed" };

/**
 * Performs an instruction as an effect; `claims` keeps whether the object was claimed, `now`
 * performs the instructions that need no effect (for one that reaches here all the same).
 *
 * @example
 * ```ts
 * const observed = yield* performEffect(cycle, claims, step.instruction, (i) => performNow(cycle, i))
 * ```
 */
export const performEffect = (
  cycle: Cycle,
  claims: { claimed: boolean },
  instruction: CyclePlan.Instruction,
  now: (instruction: CyclePlan.Instruction) => CyclePlan.Observation | undefined,
): Effect.Effect<CyclePlan.Observation, CycleError, KubeApi> => {
  const { resource, engines, settings, event, key, context, patch } = cycle;
  const body = event.object;
  switch (instruction._tag) {
    case "Index": {
      const { indexing, indexed } = engines;
      const indexedThen =
        indexed === undefined
          ? Effect.succeed(PERFORMED)
          : Effect.as(ObjectQueues.aside(context, indexed), PERFORMED);
      return indexing === undefined
        ? indexedThen
        : Effect.flatMap(indexing({ resource, event, key }), () => indexedThen);
    }
    case "Claim": {
      const { ownership } = engines;
      if (ownership === undefined) {
        claims.claimed = false;
        return Effect.succeed({ _tag: "Claimed", claimed: false });
      }
      return Effect.map(ownership.claim(key), (claimed) => {
        claims.claimed = claimed;
        return { _tag: "Claimed", claimed } as const;
      });
    }
    case "RunWatching":
      return Effect.map(
        ObjectQueues.aside(
          context,
          Execution.runWatching({ cause: instruction.cause, handlers: instruction.handlers, settings }),
        ),
        () => ({ _tag: "Watched", patchEmpty: patch.isEmpty() }) as const,
      );
    case "Fail":
      return Effect.fail(instruction.error);
    case "Spawn":
      return engines.spawning === undefined
        ? Effect.sync(
            () =>
              ({
                _tag: "Spawned",
                delays: [],
                excluded: new Set<string>(),
                patchEmpty: patch.isEmpty(),
              }) as const,
          )
        : Effect.map(
            engines.spawning({ resource, event, key, ...instruction }),
            (spawned) => ({ _tag: "Spawned", ...spawned, patchEmpty: patch.isEmpty() }) as const,
          );
    case "Finalizer": {
      const { decision } = instruction;
      const fn = FinalizerDecision.toPatchFn(decision, settings.persistence.finalizer);
      if (fn !== undefined) patch.fns.push(fn);
      return decision._tag === "Keep"
        ? Effect.succeed(PERFORMED)
        : Effect.as(Effect.logDebug(decision.message), PERFORMED);
    }
    case "Wait":
      return Effect.flatMap(Clock.currentTimeMillis, (time) =>
        Effect.map(
          ObjectQueues.aside(context, Pressure.sleep(context.pressure, (instruction.until - time) / 1000)),
          (slept) => ({ _tag: "Waited", sleptFully: slept.fully }) as const,
        ),
      );
    case "Refresh":
      return Effect.map(
        Refreshing.currentVersion({ resource, body }),
        (resourceVersion) => ({ _tag: "Refreshed", resourceVersion }) as const,
      );
    case "Log": {
      const line =
        instruction.level === "Error"
          ? Effect.logError(instruction.message)
          : instruction.level === "Warning"
            ? Effect.logWarning(instruction.message)
            : Effect.logDebug(instruction.message);
      return Effect.as(
        instruction.local === true ? line.pipe(Effect.annotateLogs(Logging.LOCAL, true)) : line,
        PERFORMED,
      );
    }
    case "RunChanging":
      return Effect.map(
        ObjectQueues.aside(
          context,
          Execution.runChanging({ ...instruction, settings, lifecycle: cycle.lifecycle }),
        ),
        (run) => ({ _tag: "Changed", done: run.done, skipped: run.skipped, delays: run.delays }) as const,
      );
    case "Fence":
      return engines.ownership === undefined
        ? Effect.succeed({ _tag: "Held", holds: true })
        : Effect.map(engines.ownership.holds(key), (holds) => ({ _tag: "Held", holds }) as const);
    case "Patch":
      return Effect.map(
        Applying.patch({ resource, body, patch }),
        (outcome) => ({ _tag: "Patched", outcome }) as const,
      );
    case "Post":
      return Effect.withFiberSucceed((fiber) => {
        fiber
          .getRef(Posting.CurrentEvents)
          ?.warn(body, { reason: instruction.event.reason, message: instruction.event.message });
        return PERFORMED;
      });
    case "Sleep":
      return Effect.map(
        ObjectQueues.aside(context, Pressure.sleep(context.pressure, instruction.seconds)),
        (slept) => ({ _tag: "Slept", ...slept }) as const,
      );
    case "Touch":
      return Effect.map(
        Applying.touch({ resource, body }),
        (resourceVersion) => ({ _tag: "Touched", resourceVersion }) as const,
      );
    default:
      return Effect.sync(() => now(instruction) ?? PERFORMED);
  }
};

/** How performing an instruction can fail (the cycle's throttler retries or reports it). */
export type CycleError =
  | StorageDecodeError
  | State.StateError
  | PatchApplier.PatchNotStored
  | Patch.PatchError;

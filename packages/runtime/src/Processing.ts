/**
 * The processing of one watch event of one object (Kopf's `process_resource_event` and
 * `process_resource_causes`, docs/behaviour/processing.md#per-event, docs/behaviour/processing.md#cause-order, docs/behaviour/processing.md#changing-causes): recall the object's memory, then — inside the
 * per-object error throttler — index it (engine seam), detect the causes, run the `on.event`
 * handlers, spawn daemons and timers (engine seam), decide on the finalizer, pass the
 * consistency gate, run the changing handlers through the execution engine, store the
 * diff-base once a cause is fully handled, and finally apply the patch, sleep and touch. The
 * decisions between these effects (the finalizer, the gate, what the changing step does, the
 * diff-base, the memory, the release, whether to apply) are the pure plan of `CyclePlan`
 * (`@kopf/causes`); this module performs the effects in their order and follows the plan.
 *
 * Everything about one object runs with its reference as the log annotation, so every line
 * (including the handlers' own) is prefixed `[ns/name]` and can be posted as an event.
 *
 * The indexing and spawning steps are seams, not stubs: they call the engines given in
 * {@link ProcessorOptions.engines} (see `Engines`), and do nothing when none is registered (the
 * runtime alone; `@kopf/engines` registers them).
 */
import {
  CauseInputs,
  ChangeCause,
  CyclePlan,
  FinalizerDecision,
  ResourceMemory,
  SpawningCause,
  WatchingCause,
} from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import { type Lifecycle, Matching, type Memo, type Registry } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { DiffBaseStorage } from "@kopf/storage";
import { Patch, type RawEvent, Resource } from "@kopf/structs";
import { Clock, Effect, Option } from "effect";
import * as Applying from "./Applying.ts";
import type * as Engines from "./Engines.ts";
import * as Execution from "./execution/Execution.ts";
import * as Logging from "./Logging.ts";
import * as Metrics from "./Metrics.ts";
import type * as ObjectQueues from "./ObjectQueues.ts";
import * as Posting from "./Posting.ts";
import * as Pressure from "./Pressure.ts";
import * as Throttler from "./Throttler.ts";

/** What the runtime keeps about one object between its events. */
export interface ObjectMemory {
  /** Cause-detection memory: noticed by the listing, fully handled once (docs/behaviour/causes.md#resuming). */
  causes: ResourceMemory.ResourceMemory;
  /** The handlers' per-object memo: a shallow copy of the operator's memo at first sight. */
  readonly memo: Memo;
  /** The error throttler's state (docs/behaviour/processing.md#throttling). */
  throttler: Throttler.Throttler;
  /** Patch functions left over by a 422 conflict, retried on the next cycle. */
  remaining: Patch.Patch | undefined;
}

/** Everything the processing of one resource kind needs. */
export interface ProcessorOptions {
  readonly registry: Registry.Registry;
  readonly resource: Resource.Resource;
  /** The operator's memo; each object gets a shallow copy. */
  readonly memo: Memo;
  readonly engines?: Engines.Engines | undefined;
  /** How changing handlers are chosen per cycle (docs/behaviour/processing.md#lifecycles); default `asap`. */
  readonly lifecycle?: Lifecycle | undefined;
}

/** The processor of one resource kind (shared by all its watch streams) and its memories. */
export interface ResourceProcessor {
  readonly process: ObjectQueues.Processor<KubeApi>;
  /** The memories of the objects seen, by uid. */
  readonly memories: ReadonlyMap<string, ObjectMemory>;
}

/**
 * A processor for the events of one resource kind.
 *
 * @example
 * ```ts
 * const processor = Processing.make({ registry, resource, memo: {} })
 * const queues = yield* ObjectQueues.make(processor.process, queueOptions)
 * ```
 */
export const make = (options: ProcessorOptions): ResourceProcessor => {
  const memories = new Map<string, ObjectMemory>();

  const recall = (event: RawEvent): { key: string; memory: ObjectMemory } => {
    const key = ResourceMemory.keyOf(event.object);
    let memory = memories.get(key);
    if (memory === undefined) {
      memory = {
        causes: ResourceMemory.fresh(event.type),
        memo: { ...options.memo },
        throttler: Throttler.initial,
        remaining: undefined,
      };
      memories.set(key, memory);
    }
    if (event.type === "DELETED") memories.delete(key);
    return { key, memory };
  };

  const process: ObjectQueues.Processor<KubeApi> = (event, context) =>
    Effect.gen(function* () {
      const settings = yield* OperatorSettings;
      const { key, memory } = recall(event);
      yield* Metrics.gauge(Metrics.objectsKnown, Resource.toString(options.resource), memories.size);
      const cell: Throttler.Cell = {
        get: () => memory.throttler,
        set: (state) => {
          memory.throttler = state;
        },
      };
      const result = yield* Throttler.throttled(
        {
          cell,
          delays: settings.queueing.errorDelays,
          pressure: context.pressure,
          retryIf: (error) => error._tag === "PatchNotStored",
        },
        processCauses({ options, event, key, memory, context }),
      );
      return Option.getOrUndefined(result);
    }).pipe(Logging.annotateObject(Posting.referenceOf(event.object)));

  return { process, memories };
};

interface CycleInput {
  readonly options: ProcessorOptions;
  readonly event: RawEvent;
  readonly key: string;
  readonly memory: ObjectMemory;
  readonly context: ObjectQueues.WorkerContext;
}

/** One cycle: causes, handlers, finalizers, then the patch (docs/behaviour/processing.md#per-event steps 5–7, docs/behaviour/processing.md#cause-order). */
const processCauses = (input: CycleInput) =>
  Effect.gen(function* () {
    const { options, event, key } = input;
    const { resource } = options;
    const engines = options.engines ?? {};
    if (engines.indexing !== undefined) yield* engines.indexing({ resource, event, key });
    if (engines.indexed !== undefined) yield* engines.indexed;

    // Scaled out: another replica handles objects this one does not own (indexed above anyway).
    const ownership = engines.ownership;
    if (ownership === undefined) return yield* handleCauses(input);
    if (!(yield* ownership.claim(key))) return undefined;
    return yield* handleCauses(input).pipe(Effect.ensuring(ownership.release(key)));
  });

/** The cycle of an object this replica handles: everything after indexing. */
const handleCauses = (input: CycleInput) =>
  Effect.gen(function* () {
    const { options, event, key, memory, context } = input;
    const { registry, resource } = options;
    const engines = options.engines ?? {};
    const settings = yield* OperatorSettings;
    const { finalizer, diffbaseStorage, progressStorage } = settings.persistence;
    const body = event.object;

    const carried = memory.remaining;
    const patch = new Patch.Patch(body, { fns: carried?.fns ?? [] });
    const patchInitiallyEmpty = patch.isEmpty();
    const services = yield* Effect.context<never>();
    const ctx = {
      resource,
      patch,
      logger: Logging.handlerLogger(services),
      memo: memory.memo,
      indices: engines.indices?.() ?? {},
    };

    // On-event handlers: every event, errors ignored, results into the patch.
    if (registry.hasHandlers("watching", resource)) {
      // Their logger is local: its lines are never posted as events (Kopf's `LocalObjectLogger`).
      const local = { ...ctx, logger: Logging.handlerLogger(services, { [Logging.LOCAL]: true }) };
      const cause = WatchingCause.make(event, local);
      const handlers = Matching.watchingHandlers(registry.watchingFor(resource), cause);
      if (handlers.length > 0) yield* Execution.runWatching({ cause, handlers, settings });
    }

    const inputs = yield* Effect.fromResult(
      CauseInputs.make({
        event,
        registry,
        resource,
        diffbaseStorage,
        progressStorage,
        finalizer,
        memory: memory.causes,
      }),
    );

    // Daemons and timers (engine seam). Without a spawning engine nothing runs them, so they
    // are ignored altogether: they must not hold a finalizer that nothing would ever release.
    const spawningHandlers = engines.spawning === undefined ? [] : registry.spawningFor(resource);
    const spawningCause =
      spawningHandlers.length > 0 ? SpawningCause.make({ body, diff: inputs.diff }, ctx) : undefined;
    let delays: Array<number> = [];
    let excluded: ReadonlySet<string> = new Set();
    if (spawningCause !== undefined && engines.spawning !== undefined) {
      const spawned = yield* engines.spawning({
        resource,
        event,
        key,
        cause: spawningCause,
        handlers: spawningHandlers,
      });
      delays = [...spawned.delays];
      excluded = spawned.excluded;
    }

    // The changing cause, unless in stealth mode (no changing handler could be interested).
    const owned = registry.changingFor(resource);
    const made = owned.length > 0 ? ChangeCause.make(inputs, ctx) : undefined;
    const changing = made !== undefined && Matching.prematchAny(owned, made) ? made : undefined;

    const mustBlock = Matching.requiresFinalizer({
      ...(changing === undefined ? {} : { changing: { handlers: owned, cause: changing } }),
      ...(spawningCause === undefined
        ? {}
        : { spawning: { handlers: spawningHandlers, cause: spawningCause, excluded } }),
    });
    // The plan of the changing step: the finalizer, the consistency gate, what to run.
    const facts: CyclePlan.Facts = {
      type: event.type,
      body,
      finalizer,
      mustBlock,
      reason: changing?.reason,
      consistencyTime: context.consistencyTime,
      patchEmpty: patch.isEmpty(),
      patchInitiallyEmpty,
    };
    let plan = CyclePlan.plan(facts);
    const blocking = FinalizerDecision.toPatchFn(plan.blocking, finalizer);
    if (plan.blocking._tag !== "Keep") yield* Effect.logDebug(plan.blocking.message);
    if (blocking !== undefined) patch.fns.push(blocking);
    if (plan.gate._tag === "Wait") {
      const now = yield* Clock.currentTimeMillis;
      const slept = yield* Pressure.sleep(context.pressure, (plan.gate.until - now) / 1000);
      plan = CyclePlan.afterWait(plan, { sleptFully: slept.fully });
    }

    const step = CyclePlan.changingStep(plan);
    let handled: CyclePlan.Handled = "NotRun";
    if (step._tag === "Log") yield* Effect.logDebug(step.message);
    if (step._tag === "RunHandlers" && changing !== undefined) {
      const run = yield* Execution.runChanging({
        cause: changing,
        handlers: Matching.changingHandlers(owned, changing),
        owned,
        settings,
        lifecycle: options.lifecycle,
      });
      delays = [...delays, ...run.delays];
      handled = run.done ? "Done" : run.skipped ? "Skipped" : "Pending";
    }

    const conclusion = CyclePlan.conclude(facts, plan, { handled, delays });
    if (conclusion.storeDiffBase)
      DiffBaseStorage.storeIfChanged(diffbaseStorage, { body, patch, old: inputs.old, new: inputs.new });
    if (conclusion.markFullyHandled) memory.causes = ResourceMemory.markFullyHandled(memory.causes);
    const releasing = FinalizerDecision.toPatchFn(conclusion.release, finalizer);
    if (conclusion.release._tag === "Remove" && releasing !== undefined) {
      yield* Effect.logDebug(conclusion.release.message);
      patch.fns.push(releasing);
    }

    if (!conclusion.apply) return undefined;
    if (engines.ownership !== undefined && !(yield* engines.ownership.holds(key))) {
      // Fenced: the lease was not renewed in time, another replica may own the object by now.
      yield* Effect.logWarning("Ownership lost during the handling; the outcome is not stored.");
      return undefined;
    }
    const applied = yield* Applying.apply({
      resource,
      body,
      patch,
      delays,
      pressure: context.pressure,
      handled: step._tag !== "None",
    });
    memory.remaining = applied.remaining;
    return applied.resourceVersion;
  });

/**
 * The processing of one watch event of one object (Kopf's `process_resource_event` and
 * `process_resource_causes`, docs/behaviour/processing.md#per-event,
 * docs/behaviour/processing.md#cause-order): recall the object's memory, then — inside the
 * per-object error throttler — interpret the cycle's plan. What the cycle does and in which
 * order (indexing, `on.event`, spawning, the finalizer, the consistency gate, the changing
 * handlers, the diff-base and memory, the release, the patch with its earliest delay) is the pure
 * state machine `CyclePlan` of `@kopf/causes`, over the handlers `CycleSelection` chose; this
 * module is a thin interpreter: it performs one instruction at a time (the engines, the
 * execution engine, the patch, the sleeps) and reports what it observed, and returns the plan's
 * outcome.
 *
 * Everything about one object runs with its reference as the log annotation, so every line
 * (including the handlers' own) is prefixed `[ns/name]` and can be posted as an event.
 *
 * The indexing and spawning steps are seams, not stubs: they call the engines given in
 * {@link ProcessorOptions.engines} (see `Engines`), and do nothing when none is registered (the
 * runtime alone; `@kopf/engines` registers them).
 */
import { CyclePlan, CycleSelection, FinalizerDecision, ResourceMemory } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { DiffBaseStorage } from "@kopf/storage";
import { Patch, type RawEvent, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
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
  /**
   * Forgets the objects whose keys match (a sharded replica's objects of ranges it gave up):
   * a cycle still running keeps its memory until it ends; the next event starts afresh.
   */
  readonly forget: (which: (key: string) => boolean) => Effect.Effect<void>;
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

  const forget = (which: (key: string) => boolean) =>
    Effect.sync(() => {
      for (const key of [...memories.keys()]) if (which(key)) memories.delete(key);
    });

  return { process, memories, forget };
};

interface CycleInput {
  readonly options: ProcessorOptions;
  readonly event: RawEvent;
  readonly key: string;
  readonly memory: ObjectMemory;
  readonly context: ObjectQueues.WorkerContext;
}

/**
 * One cycle (docs/behaviour/processing.md#per-event steps 4–6, docs/behaviour/processing.md#cause-order):
 * the interpreter of the cycle's plan. It builds the cycle's patch and handler contexts, selects
 * the handlers (`CycleSelection`), then performs the instructions of `CyclePlan` one by one and
 * reports what each did, until the plan finishes with the cycle's outcome.
 */
const processCauses = (input: CycleInput) =>
  Effect.gen(function* () {
    const { options, event, key, memory, context } = input;
    const { registry, resource } = options;
    const engines = options.engines ?? {};
    const settings = yield* OperatorSettings;
    const { finalizer, diffbaseStorage, progressStorage } = settings.persistence;
    const body = event.object;

    const patch = new Patch.Patch(body, { fns: memory.remaining?.fns ?? [] });
    const facts: CyclePlan.Facts = {
      type: event.type,
      body,
      finalizer,
      consistencyTime: context.consistencyTime,
      patchInitiallyEmpty: patch.isEmpty(),
      engines: {
        indexing: engines.indexing !== undefined || engines.indexed !== undefined,
        ownership: engines.ownership !== undefined,
      },
    };
    /** The handlers' contexts (with the indices as they are after indexing) and the selection. */
    const select = Effect.gen(function* () {
      const services = yield* Effect.context<never>();
      const ctx = {
        resource,
        patch,
        logger: Logging.handlerLogger(services),
        memo: memory.memo,
        indices: engines.indices?.() ?? {},
      };
      return CycleSelection.select({
        event,
        registry,
        resource,
        persistence: { finalizer, diffbaseStorage, progressStorage },
        memory: memory.causes,
        context: ctx,
        // The `on.event` handlers' logger is local: its lines are never posted as events (Kopf's `LocalObjectLogger`).
        localLogger: () => Logging.handlerLogger(services, { [Logging.LOCAL]: true }),
        spawns: engines.spawning !== undefined,
      });
    });

    let claimed = false;
    const perform = (instruction: CyclePlan.Instruction) =>
      Effect.gen(function* () {
        const performed: CyclePlan.Observation = { _tag: "Performed" };
        switch (instruction._tag) {
          case "Index":
            if (engines.indexing !== undefined) yield* engines.indexing({ resource, event, key });
            if (engines.indexed !== undefined) yield* engines.indexed;
            return performed;
          case "Claim":
            claimed = engines.ownership === undefined ? false : yield* engines.ownership.claim(key);
            return { _tag: "Claimed", claimed } as const;
          case "Select":
            return { _tag: "Selected", selection: yield* select } as const;
          case "RunWatching":
            yield* Execution.runWatching({
              cause: instruction.cause,
              handlers: instruction.handlers,
              settings,
            });
            return { _tag: "Watched", patchEmpty: patch.isEmpty() } as const;
          case "Fail":
            return yield* Effect.fail(instruction.error);
          case "Spawn": {
            const spawned =
              engines.spawning === undefined
                ? { delays: [], excluded: new Set<string>() }
                : yield* engines.spawning({ resource, event, key, ...instruction });
            return { _tag: "Spawned", ...spawned, patchEmpty: patch.isEmpty() } as const;
          }
          case "Finalizer": {
            const fn = FinalizerDecision.toPatchFn(instruction.decision, finalizer);
            if (instruction.decision._tag !== "Keep") yield* Effect.logDebug(instruction.decision.message);
            if (fn !== undefined) patch.fns.push(fn);
            return performed;
          }
          case "Wait": {
            const now = yield* Clock.currentTimeMillis;
            const slept = yield* Pressure.sleep(context.pressure, (instruction.until - now) / 1000);
            return { _tag: "Waited", sleptFully: slept.fully } as const;
          }
          case "Log": {
            const line =
              instruction.level === "Error"
                ? Effect.logError(instruction.message)
                : instruction.level === "Warning"
                  ? Effect.logWarning(instruction.message)
                  : Effect.logDebug(instruction.message);
            yield* instruction.local === true ? line.pipe(Effect.annotateLogs(Logging.LOCAL, true)) : line;
            return performed;
          }
          case "RunChanging": {
            const run = yield* Execution.runChanging({
              ...instruction,
              settings,
              lifecycle: options.lifecycle,
            });
            return { _tag: "Changed", done: run.done, skipped: run.skipped, delays: run.delays } as const;
          }
          case "StoreDiffBase":
            DiffBaseStorage.storeIfChanged(diffbaseStorage, {
              body,
              patch,
              old: instruction.old,
              new: instruction.new,
            });
            return performed;
          case "Remember":
            if (instruction.change._tag === "MarkFullyHandled")
              memory.causes = ResourceMemory.markFullyHandled(memory.causes);
            else memory.remaining = instruction.change.pending;
            return performed;
          case "Fence":
            return {
              _tag: "Held",
              holds: engines.ownership === undefined ? true : yield* engines.ownership.holds(key),
            } as const;
          case "Patch":
            return { _tag: "Patched", outcome: yield* Applying.patch({ resource, body, patch }) } as const;
          case "Post": {
            const events = yield* Posting.CurrentEvents;
            events?.warn(body, { reason: instruction.event.reason, message: instruction.event.message });
            return performed;
          }
          case "Sleep": {
            const slept = yield* Pressure.sleep(context.pressure, instruction.seconds);
            return { _tag: "Slept", ...slept } as const;
          }
          case "Touch":
            return { _tag: "Touched", resourceVersion: yield* Applying.touch({ resource, body }) } as const;
          case "Finish":
            return performed;
        }
      });

    const interpret = Effect.gen(function* () {
      let step = CyclePlan.start(facts);
      while (step.instruction._tag !== "Finish")
        step = CyclePlan.advance(step.state, yield* perform(step.instruction));
      return step.instruction.outcome;
    });
    const outcome = yield* interpret.pipe(
      // Scaled out: the object claimed for this cycle is released however the cycle ends.
      Effect.ensuring(
        Effect.suspend(() =>
          claimed && engines.ownership !== undefined ? engines.ownership.release(key) : Effect.void,
        ),
      ),
    );
    return outcome._tag === "Applied" ? outcome.resourceVersion : undefined;
  });

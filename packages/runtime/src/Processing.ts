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
import { CyclePlan, ResourceMemory } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { Body, Patch, type RawEvent, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as LogLevel from "effect/LogLevel";
import * as Option from "effect/Option";
import * as References from "effect/References";
import type * as Engines from "./Engines.ts";
import * as CycleInstructions from "./internal/cycleInstructions.ts";
import * as Logging from "./Logging.ts";
import * as Metrics from "./Metrics.ts";
import * as ObjectQueues from "./ObjectQueues.ts";
import * as Posting from "./Posting.ts";
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
  /**
   * The same cycle, tried at once without any effect, for an event whose cycle may well need
   * none (see {@link ObjectQueues.Quick}).
   */
  readonly quick: ObjectQueues.Quick;
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

  const resourceName = Resource.toString(options.resource);
  /** Sets `kopf_objects_known` to the objects remembered now. */
  const countKnown = (services: Context.Context<never>): void =>
    Metrics.gaugeUnsafe(services, Metrics.objectsKnown, resourceName, memories.size);
  const retryIf = (error: CycleInstructions.CycleError) => error._tag === "PatchNotStored";

  // The cycle's settings and services are read once from its fiber (with the object's log
  // annotation in force), and what needs no effect is done at once: one effect per cycle here.
  const process: ObjectQueues.Processor<KubeApi> = (event, context) =>
    Effect.withFiber<string | null | undefined, never, KubeApi>((fiber) => {
      const services = fiber.context;
      const settings = Context.get(services, OperatorSettings);
      const { key, memory } = recall(event);
      countKnown(services);
      const cell: Throttler.Cell = {
        get: () => memory.throttler,
        set: (state) => {
          memory.throttler = state;
        },
      };
      const cycle = { options, event, key, memory, context, settings, services };
      return Effect.map(
        Throttler.throttled(
          {
            cell,
            delays: settings.queueing.errorDelays,
            pressure: context.pressure,
            aside: context.aside,
            retryIf,
          },
          Effect.suspend(() => processCauses(cycle)),
        ),
        Option.getOrUndefined,
      );
    }).pipe(Logging.annotateObject(Posting.referenceOf(event.object)));

  // The echo of our own patch to an object fully handled once, and that object's deletion event,
  // are the likely cycles with nothing to do. A cycle with an index or claim step, `on.event`
  // handlers, daemons or timers, of a throttled object, or of an object being deleted with our
  // finalizer (its delete handlers, the finalizer's release) always needs an effect, and is not
  // tried: it would be worked out twice.
  const quick: ObjectQueues.Quick = (event, context, services) => {
    if (event.type !== "MODIFIED" && event.type !== "DELETED") return ObjectQueues.NOT_QUICK;
    // Debug lines are effects: such a cycle would be given up on after its selection.
    if (!LogLevel.isGreaterThan(Context.get(services, References.MinimumLogLevel), "Debug"))
      return ObjectQueues.NOT_QUICK;
    const settings = Context.get(services, OperatorSettings);
    const body = event.object;
    if (
      Body.deletionTimestamp(body) !== undefined &&
      Body.finalizers(body).includes(settings.persistence.finalizer)
    )
      return ObjectQueues.NOT_QUICK;
    const key = ResourceMemory.keyOf(body);
    const memory = memories.get(key);
    if (memory === undefined || !memory.causes.fullyHandledOnce) return ObjectQueues.NOT_QUICK;
    if (!Throttler.isIdle(memory.throttler) || (memory.remaining?.fns.length ?? 0) > 0)
      return ObjectQueues.NOT_QUICK;
    const { registry, resource } = options;
    const engines = options.engines ?? {};
    if (
      engines.ownership !== undefined ||
      indexes(options) ||
      registry.hasHandlers("watching", resource) ||
      (engines.spawning !== undefined && registry.hasHandlers("spawning", resource))
    )
      return ObjectQueues.NOT_QUICK;
    const { performer, start } = prepare({ options, event, key, memory, context, settings, services });
    return answerOf(CycleInstructions.runNow(performer, start), event, key, services);
  };

  // A cycle's answer at once: done (its outcome), or given up on at its first effect. When the
  // only thing in the way is the wait for our own patch's echo, its deadline ahead (a wait that a
  // queued event cuts short needs no effect), the queues carry the cycle on from that wait when
  // it would have ended, its handlers already chosen.
  const answerOf = (
    done: CyclePlan.Outcome | CycleInstructions.NeedsEffect,
    event: RawEvent,
    key: string,
    services: Context.Context<never>,
  ): ObjectQueues.QuickAnswer | ObjectQueues.AwaitNewer => {
    if (done._tag !== "NeedsEffect") {
      // Gone: forgotten, as processing's recall forgets it.
      if (event.type === "DELETED") {
        memories.delete(key);
        countKnown(services);
      }
      return versionOf(done);
    }
    const { instruction } = done;
    if (
      instruction._tag !== "Wait" ||
      instruction.until <= Context.get(services, Clock.Clock).currentTimeMillisUnsafe()
    )
      return ObjectQueues.NOT_QUICK;
    return {
      _tag: "AwaitNewer",
      resume: () => answerOf(done.again(), event, key, services),
    };
  };

  const forget = (which: (key: string) => boolean) =>
    Effect.sync(() => {
      for (const key of [...memories.keys()]) if (which(key)) memories.delete(key);
    });

  return { process, quick, memories, forget };
};

interface CycleInput {
  readonly options: ProcessorOptions;
  readonly event: RawEvent;
  readonly key: string;
  readonly memory: ObjectMemory;
  readonly context: ObjectQueues.WorkerContext;
  readonly settings: OperatorSettings;
  /** The cycle's services (with the object's log annotation), for the handlers' loggers. */
  readonly services: Context.Context<never>;
}

/**
 * One cycle (docs/behaviour/processing.md#per-event steps 4–6, docs/behaviour/processing.md#cause-order):
 * the interpreter of the cycle's plan. It builds the cycle's patch, then performs the
 * instructions of `CyclePlan` one by one (`CycleSelection` on its `Select` instruction) and
 * reports what each did, until the plan finishes with the cycle's outcome. The instructions that
 * need no effect are performed in a plain loop, so a cycle with nothing to do (the echo of our own
 * patch) runs no effect per step. Called afresh for every attempt (a retried cycle starts over).
 */
const processCauses = (
  input: CycleInput,
): Effect.Effect<string | null | undefined, CycleInstructions.CycleError, KubeApi> => {
  const { performer, start } = prepare(input);
  const ownership = input.options.engines?.ownership;
  // Scaled out: the object claimed for this cycle is released however the cycle ends.
  const outcome =
    ownership === undefined
      ? CycleInstructions.run(performer, start)
      : Effect.suspend(() => CycleInstructions.run(performer, start)).pipe(
          Effect.ensuring(
            Effect.suspend(() => (performer.claimed() ? ownership.release(input.key) : Effect.void)),
          ),
        );
  return Effect.map(outcome, versionOf);
};

/** The resource version a cycle's outcome leaves to await (see `ObjectQueues.Processor`). */
const versionOf = (done: CyclePlan.Outcome): string | null | undefined =>
  done._tag === "Applied" ? done.resourceVersion : undefined;

/** Whether a cycle has an index step: an indexing engine with something to do for the resource. */
const indexes = (options: ProcessorOptions): boolean => {
  const engines = options.engines ?? {};
  return (
    (engines.indexing !== undefined || engines.indexed !== undefined) &&
    engines.indexIdle?.(options.resource) !== true
  );
};

/** A cycle's performer and the first step of its plan (its patch made afresh). */
const prepare = (input: CycleInput): { performer: CycleInstructions.Performer; start: CyclePlan.Step } => {
  const { options, event, key, memory, context, settings, services } = input;
  const engines = options.engines ?? {};
  const patch = new Patch.Patch(event.object, { fns: memory.remaining?.fns ?? [] });
  const facts: CyclePlan.Facts = {
    type: event.type,
    body: event.object,
    finalizer: settings.persistence.finalizer,
    consistencyTime: context.consistencyTime,
    patchInitiallyEmpty: patch.isEmpty(),
    engines: { indexing: indexes(options), ownership: engines.ownership !== undefined },
  };
  const performer = CycleInstructions.make({
    registry: options.registry,
    resource: options.resource,
    lifecycle: options.lifecycle,
    engines,
    settings,
    services,
    event,
    key,
    memory,
    context,
    patch,
  });
  return { performer, start: CyclePlan.start(facts) };
};

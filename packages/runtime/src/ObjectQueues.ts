/**
 * Per-object queues and workers (Kopf's `queueing.watcher`/`worker`, docs/behaviour/watching.md#queues, docs/behaviour/watching.md#consistency): events are
 * demultiplexed by object key; one worker per object processes its events strictly in order,
 * one at a time, while different objects are processed concurrently (up to
 * `queueing.workerLimit` workers at once when set). A worker ends after `queueing.idleTimeout`
 * seconds without events (longer while a consistency wait is pending) and a new one starts with
 * the next event. Meanwhile the idle worker is only its stream's record, parked under one Clock
 * timer shared by all (`internal/idleWaits.ts`): its fiber ends as soon as its queue is empty, and
 * an event queued before the timeout wakes it, carrying on where it was (the version it awaits,
 * its cycles served as continuing), counted under the worker limit meanwhile. Woken streams are
 * served together in the queues' wake-up turn (`internal/wakeTurns.ts`): the cycles done at once
 * (most of them: the echoes of our own patches) run there, and a fiber starts again only for an
 * event that needs the full processing. The events taken while their cycles are done at once are
 * `internal/quickSteps.ts`, the parks `internal/streamParking.ts`, the streams and their counts
 * `internal/streamBook.ts`; this module wires them, runs the workers and shuts them down.
 * The queue gauges are read when the metrics are read (`internal/queueGauges.ts`): a wait or a
 * queued event costs no fibers of its own.
 *
 * At most `cycleLimit` cycles are in flight at once ({@link CYCLE_LIMIT} by default): the events
 * of further objects wait in their queues until a slot frees. A cycle gives its slot back while it
 * waits for anything but the framework's own work (handlers, sleeps, delays: {@link aside}), so a
 * slow or sleeping handler never holds up other objects (see `internal/cycleSlots.ts`). An object's
 * worker itself starts only when a slot is free for its first cycle (and, with a worker limit, a
 * place under it): until then the object is its queued events and flag, not a waiting fiber.
 * Given the event loop's load (`load`), the limit adapts to it while cycles wait
 * (`internal/cycleLimiting.ts`, `CycleLimit.ts`).
 *
 * Every queued event raises the object's {@link Pressure} flag; the worker lowers it before it
 * processes the last queued event, so sleeps inside processing wake up when newer events wait.
 *
 * Consistency: when processing patched the object, it returns the resource version of the
 * patch's response; the worker then awaits that version for `persistence.consistencyTimeout`
 * seconds, passing the deadline to processing, which runs no change-detecting handlers on older
 * (stale) states (see `@kopf/causes`' `ConsistencyGate`). Once the deadline has passed without
 * that version, processing re-reads the object before it runs them, and returns what to await
 * next (the re-read version, or `null`: nothing). `0` disables the tracking.
 *
 * A failure of processing (a framework bug: processing itself never fails) is logged as Kopf
 * does and ends that object's worker only; the next event starts a fresh one. (Kopf also cancels
 * the watcher of that resource, which then stays dead; we keep serving the other objects.)
 */
import { MetricRecording } from "@kopf/client";
import type { RawEvent } from "@kopf/structs";
import { ObjectKey } from "@kopf/watcher";
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as FiberSet from "effect/FiberSet";
import * as Option from "effect/Option";
import * as References from "effect/References";
import type * as Scope from "effect/Scope";
import * as CycleLimiting from "./internal/cycleLimiting.ts";
import * as CycleSlots from "./internal/cycleSlots.ts";
import * as IdleWaits from "./internal/idleWaits.ts";
import * as ObjectStream from "./internal/objectStream.ts";
import type { Processor, Quick } from "./internal/queueContract.ts";
import * as QueueGauges from "./internal/queueGauges.ts";
import * as QuickSteps from "./internal/quickSteps.ts";
import * as StreamBook from "./internal/streamBook.ts";
import * as StreamParking from "./internal/streamParking.ts";
import * as WakeTurns from "./internal/wakeTurns.ts";
import * as WorkerPlaces from "./internal/workerPlaces.ts";
import type * as LoopLoad from "./LoopLoad.ts";
import * as Metrics from "./Metrics.ts";
import * as Pressure from "./Pressure.ts";
import * as Tracing from "./Tracing.ts";

export {
  type AwaitNewer,
  aside,
  isAwaitNewer,
  NOT_QUICK,
  type Processor,
  type Quick,
  type QuickAnswer,
  type WorkerContext,
} from "./internal/queueContract.ts";

/**
 * The most processing cycles in flight at once by default: as many as the client's connections
 * for plain requests. Twice as many kept no more requests going (a cycle spends most of its time
 * waiting for its request) but twice the state alive in a burst, which the young generation's
 * collections copy until it is done (measured in docs/performance.md).
 */
export const CYCLE_LIMIT = 32;

/** How the queues behave (from `settings.queueing` and `settings.persistence`). Durations in seconds. */
export interface Options {
  readonly idleTimeout: number;
  readonly exitTimeout: number;
  /** The most workers running at once; `null`: unlimited. */
  readonly workerLimit: number | null;
  /** The most cycles in flight at once (their waits not counted); `null`: unlimited. Default {@link CYCLE_LIMIT}. */
  readonly cycleLimit?: number | null | undefined;
  /** The event loop's load, to adapt the cycle limit to (see `CycleLimit.ts`); none: it stays. */
  readonly load?: LoopLoad.Shape | undefined;
  readonly consistencyTimeout: number;
  /** For log lines: the resource (and namespace) these queues serve. */
  readonly name?: string | undefined;
  /** For metrics: the resource these queues serve (`plural.version.group`); none: not measured. */
  readonly resource?: string | undefined;
}

/** The queues of one watch stream. */
export interface ObjectQueues {
  /** Queues an event for its object's worker (starting one if none runs). */
  readonly offer: (event: RawEvent) => Effect.Effect<void>;
  /** {@link offer} done at once, from code running in `fiber` (a loop over a chunk of events). */
  readonly offerUnsafe: (event: RawEvent, fiber: Fiber.Fiber<unknown, unknown>) => void;
  /** The keys of objects with a running worker. */
  readonly active: () => ReadonlyArray<string>;
  /**
   * Ends every stream: sleeping workers are woken (their sleeps end as for a new event) and
   * finish what is queued within `exitTimeout` seconds; the rest are
   * interrupted with Kopf's warning "Unprocessed streams left for …".
   */
  readonly shutdown: Effect.Effect<void>;
}

/**
 * Starts the queues in the current scope (closing the scope interrupts every worker).
 *
 * @example
 * ```ts
 * const queues = yield* ObjectQueues.make((event, ctx) => processResourceEvent(event, ctx), options)
 * yield* Stream.runForEach(events, queues.offer)
 * ```
 */
export const make = <R>(
  process: Processor<R>,
  options: Options,
  quick?: Quick,
): Effect.Effect<ObjectQueues, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const fibers = yield* FiberSet.make<void, never>();
    const runFork = yield* FiberSet.runtime(fibers)<R>();
    // The idle waits' timer runs in a set of its own: shutting down awaits the workers only.
    const waits = IdleWaits.make(yield* FiberSet.runtime(yield* FiberSet.make<void, never>())());
    const context = yield* Effect.context<never>();
    const cycleLimit = options.cycleLimit === undefined ? CYCLE_LIMIT : options.cycleLimit;
    const slots = CycleSlots.make(cycleLimit);
    const resource = options.resource;
    const observeLimit = (limit: number) => {
      if (resource !== undefined) Metrics.gaugeUnsafe(context, Metrics.cycleLimit, resource, limit);
    };
    if (cycleLimit !== null) {
      observeLimit(cycleLimit);
      if (options.load !== undefined)
        yield* Effect.forkScoped(
          CycleLimiting.adapt(slots, options.load, cycleLimit, options.name, observeLimit),
        );
    }
    // Streams hold their place under the worker limit while parked (see `internal/workerPlaces.ts`).
    const book = StreamBook.make(WorkerPlaces.make(options.workerLimit));
    const streams = book.streams;
    let closing = false;
    // Set once shutting down has given up on the streams left: nothing starts after that.
    let finished = false;
    // With the objects that have a stream, the events waiting are the resource's queue gauges,
    // read when the metrics are read, and summed over the resource's queues (one per namespace
    // watched) while these are open (when the context records metrics at all).
    if (resource !== undefined && MetricRecording.isOn(context)) {
      const leave = QueueGauges.join(context, resource, {
        objects: () => streams.size,
        events: () => book.queued,
      });
      yield* Effect.addFinalizer(() => Effect.sync(leave));
    }
    const drop = (stream: ObjectStream.ObjectStream) => StreamBook.drop(book, stream);

    // A woken stream is served in the queues' wake-up turn (below).
    const parking = StreamParking.make(book, waits, options.idleTimeout, (stream) => turns.wake(stream));
    // A cycle that needs no effect is done at once, with no span: not tried while tracing (the
    // queues' context, and so whether it traces, is fixed for their life).
    const tracing = Context.get(context, References.TracerEnabled);
    const { steps, afterCycle } = QuickSteps.make({
      book,
      parking,
      slots,
      quick: tracing ? undefined : quick,
      context,
      resource,
      consistencyTimeout: options.consistencyTimeout,
    });

    // `ticket`: the slot its first cycle was admitted with (see `CycleSlots.admit`); `first`: an
    // event already taken for the full processing (by a woken stream's quick steps).
    const worker = (
      stream: ObjectStream.ObjectStream,
      ticket: CycleSlots.Ticket | undefined,
      first?: QuickSteps.Full,
    ): Effect.Effect<void, never, R> => {
      // Whether this worker parked its stream (a later worker may run it by the time this one ends).
      const parked = { value: false };
      const working = Effect.gen(function* () {
        const clock = yield* Clock.Clock;
        let next = first;
        while (true) {
          next ??= steps(stream, clock, ticket, parked);
          if (next === undefined) return;
          const { event, arrived, consistencyTime, continuing } = next;
          next = undefined;
          const version = yield* slots.hold(
            (holder) => {
              const processing = process(event, {
                pressure: stream.pressure,
                consistencyTime,
                aside: holder.aside,
              });
              if (resource === undefined) return processing;
              const traced = tracing ? Tracing.cycle(resource, event, processing) : processing;
              return Metrics.cycle(resource, arrived, traced);
            },
            continuing,
            continuing ? undefined : ticket,
          );
          afterCycle(stream, version, clock);
        }
      }).pipe(Effect.catchCause((cause) => failed(stream, cause)));
      // However it ends, the worker gives its first slot back and drops a stream it did not park.
      return Effect.onExitPrimitive(working, () => {
        if (ticket !== undefined) slots.release(ticket);
        if (!parked.value) drop(stream);
        return undefined;
      });
    };
    const failed = (stream: ObjectStream.ObjectStream, cause: Cause.Cause<never>) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logError(
            `Event processing has failed with an unrecoverable error for ${stream.key}. This seems to be a framework bug.`,
            cause,
          );

    // A stream woken from its park runs its quick steps in the queues' wake-up turn, with no fiber
    // of its own; only an event that needs the full processing gets a worker.
    const turns = WakeTurns.make(
      runFork,
      (stream: ObjectStream.ObjectStream, clock: Clock.Clock) => {
        const parked = { value: false };
        let full: QuickSteps.Full | undefined;
        try {
          full = steps(stream, clock, undefined, parked);
        } catch (defect) {
          // As a worker fiber's failure: logged, and only this object's stream ends.
          runFork(failed(stream, Cause.die(defect)));
          return drop(stream);
        }
        if (full !== undefined) runFork(worker(stream, undefined, full));
        else if (!parked.value) drop(stream);
      },
      () => finished,
    );

    /** Starts a new stream's first worker once the worker limit and a processing slot allow. */
    const start = (stream: ObjectStream.ObjectStream) => {
      if (finished) return;
      // A slot admitted after the queues finished is not given back: nothing runs any more.
      slots.admit((ticket, later) => {
        if (finished) return;
        const body = worker(stream, ticket);
        runFork(later ? Effect.andThen(Effect.yieldNow, body) : body);
      });
    };

    const offerUnsafe = (event: RawEvent, fiber: Fiber.Fiber<unknown, unknown>): void => {
      if (closing) return;
      const key = ObjectKey.of(event.object);
      const item = { event, arrived: fiber.getRef(Clock.Clock).currentTimeMillisUnsafe() };
      const existing = streams.get(key);
      if (existing !== undefined) {
        StreamBook.enqueue(book, existing, item);
        Pressure.raiseUnsafe(existing.pressure, fiber);
        return;
      }
      const stream = StreamBook.open(book, key);
      StreamBook.enqueue(book, stream, item);
      book.places.enter(() => start(stream));
    };
    const offer = (event: RawEvent): Effect.Effect<void> =>
      Effect.withFiber((fiber) => {
        offerUnsafe(event, fiber);
        return Effect.void;
      });

    const shutdown = Effect.gen(function* () {
      closing = true;
      for (const stream of streams.values()) {
        stream.items.push(ObjectStream.END);
        IdleWaits.ring(stream.bell);
        yield* Pressure.raise(stream.pressure);
      }
      const joined = yield* Effect.timeoutOption(
        FiberSet.awaitEmpty(fibers),
        Duration.seconds(options.exitTimeout),
      );
      if (Option.isNone(joined) && streams.size > 0) {
        yield* Effect.logWarning(
          `Unprocessed streams left for ${options.name ?? "the resource"}: ${[...streams.keys()].join(", ")}`,
        );
      }
      finished = true;
      yield* FiberSet.clear(fibers);
    });

    return { offer, offerUnsafe, active: () => [...streams.keys()], shutdown } satisfies ObjectQueues;
  });

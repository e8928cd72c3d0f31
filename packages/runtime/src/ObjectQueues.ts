/**
 * Per-object queues and workers (Kopf's `queueing.watcher`/`worker`, docs/behaviour/watching.md#queues, docs/behaviour/watching.md#consistency): events are
 * demultiplexed by object key; one worker per object processes its events strictly in order,
 * one at a time, while different objects are processed concurrently (up to
 * `queueing.workerLimit` workers at once when set). A worker ends after `queueing.idleTimeout`
 * seconds without events (longer while a consistency wait is pending) and a new one starts with
 * the next event. Meanwhile the idle worker is only its stream's record, parked under one Clock
 * timer shared by all (`internal/idleWaits.ts`): its fiber ends as soon as its queue is empty, and
 * an event queued before the timeout starts a fiber for it again, carrying on where it was (the
 * version it awaits, its cycles served as continuing), counted under the worker limit meanwhile.
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
import * as AwaitedVersion from "./internal/awaitedVersion.ts";
import * as CycleLimiting from "./internal/cycleLimiting.ts";
import * as CycleSlots from "./internal/cycleSlots.ts";
import * as IdleWaits from "./internal/idleWaits.ts";
import * as ObjectStream from "./internal/objectStream.ts";
import {
  type AwaitNewer,
  isAwaitNewer,
  NOT_QUICK,
  type Processor,
  type Quick,
  type QuickAnswer,
} from "./internal/queueContract.ts";
import * as QueueGauges from "./internal/queueGauges.ts";
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
    const streams = new Map<string, ObjectStream.ObjectStream>();
    // Versions still awaited when their object's stream went idle: the object's next stream
    // awaits them on (an echo that comes after the stream ended is as stale as one before).
    const overdue = new Map<string, AwaitedVersion.Awaited>();
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
    const places = WorkerPlaces.make(options.workerLimit);
    let closing = false;
    // Set once shutting down has given up on the streams left: nothing starts after that.
    let finished = false;
    // The events waiting, counted as they come and go (a sum over all queues per event would cost
    // O(objects) per event: quadratic in a burst of new objects). With the objects that have a
    // stream, they are the resource's queue gauges, read when the metrics are read, and summed
    // over the resource's queues (one per namespace watched) while these are open.
    let queued = 0;
    if (resource !== undefined) {
      const leave = QueueGauges.join(context, resource, {
        objects: () => streams.size,
        events: () => queued,
      });
      yield* Effect.addFinalizer(() => Effect.sync(leave));
    }
    const enqueue = (stream: ObjectStream.ObjectStream, item: ObjectStream.Item) => {
      stream.items.push(item);
      stream.pending += 1;
      queued += 1;
      IdleWaits.ring(stream.bell);
    };

    /** Ends a stream: its place under the worker limit goes to the next stream waiting for one. */
    const drop = (stream: ObjectStream.ObjectStream) => {
      if (streams.get(stream.key) !== stream) return;
      streams.delete(stream.key);
      queued -= stream.pending;
      stream.pending = 0;
      places.leave();
    };

    // An idle stream waits for its next event without a fiber: a new event starts a worker again
    // (its cycle served as continuing), the idle timeout ends the stream, keeping what it awaits.
    const park = (stream: ObjectStream.ObjectStream, clock: Clock.Clock) => {
      const at = clock.currentTimeMillisUnsafe();
      // Past the deadline the version stays awaited: processing re-reads the object then.
      const idle = Math.max(options.idleTimeout * 1000, (stream.awaited?.deadline ?? at) - at);
      waits.park(stream.bell, at + idle, (rung) => {
        // Rung: the worker starts in a task of its own, after the event's offer has raised the
        // flag (which the worker lowers when it takes the last event), not on the offer's stack.
        if (rung) {
          if (!finished) runFork(Effect.andThen(Effect.yieldNow, worker(stream, undefined)));
          return;
        }
        if (stream.awaited !== undefined) overdue.set(stream.key, stream.awaited);
        drop(stream);
      });
    };

    // A cycle that needs no effect is done at once, counted as a cycle, with no slot (its first
    // cycle's ticket, if it had one, is given back) and no span: not tried while tracing (the
    // queues' context, and so whether it traces, is fixed for their life).
    const tracing = Context.get(context, References.TracerEnabled);
    const quickly = tracing ? undefined : quick;
    const counted = <A extends QuickAnswer | AwaitNewer>(done: A): A => {
      if (done !== NOT_QUICK && !isAwaitNewer(done) && resource !== undefined)
        Metrics.cycleUnsafe(context, resource);
      return done;
    };
    const tryQuick = (
      event: RawEvent,
      pressure: Pressure.Pressure,
      consistencyTime: number | undefined,
    ): QuickAnswer | AwaitNewer =>
      quickly === undefined ? NOT_QUICK : counted(quickly(event, { pressure, consistencyTime }, context));

    // A stream whose next event waits for the echo of our own patch (see `AwaitNewer`): the
    // event goes back first in line with the rest of its cycle, counted as queued again, and a
    // worker starts again once a newer event rings or the deadline has passed, as after an idle
    // park.
    const awaitNewer = (
      stream: ObjectStream.ObjectStream,
      item: Exclude<ObjectStream.Item, typeof ObjectStream.END>,
      { resume }: AwaitNewer,
      until: number,
    ) => {
      stream.items.unshift({ event: item.event, arrived: item.arrived, resume });
      stream.pending += 1;
      queued += 1;
      waits.park(stream.bell, until, () => {
        if (!finished) runFork(Effect.andThen(Effect.yieldNow, worker(stream, undefined)));
      });
    };

    // `ticket`: the slot its first cycle was admitted with (see `CycleSlots.admit`).
    const worker = (
      stream: ObjectStream.ObjectStream,
      ticket: CycleSlots.Ticket | undefined,
    ): Effect.Effect<void, never, R> => {
      // Whether this worker parked its stream (a later worker may run it by the time this one ends).
      let parked = false;
      const working = Effect.gen(function* () {
        const clock = yield* Clock.Clock;
        while (true) {
          const item = stream.items.shift();
          if (item === undefined) {
            parked = true;
            return park(stream, clock);
          }
          if (item === ObjectStream.END) return;
          stream.pending -= 1;
          queued -= 1;
          const event = item.event;
          stream.awaited = AwaitedVersion.onEvent(stream.awaited, event);
          if (stream.items.length === 0) Pressure.clearUnsafe(stream.pressure);
          const arrived = item.arrived;
          const consistencyTime = stream.awaited?.deadline;
          const continuing = stream.continuing;
          const tried =
            item.resume !== undefined
              ? counted(item.resume())
              : tryQuick(event, stream.pressure, consistencyTime);
          if (isAwaitNewer(tried) && consistencyTime !== undefined) {
            parked = true;
            return awaitNewer(stream, item, tried, consistencyTime);
          }
          const now = isAwaitNewer(tried) ? NOT_QUICK : tried;
          if (now !== NOT_QUICK && !continuing && ticket !== undefined) slots.release(ticket);
          const version =
            now !== NOT_QUICK
              ? now
              : yield* slots.hold(
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
          stream.continuing = true;
          stream.awaited = AwaitedVersion.afterCycle(
            stream.awaited,
            version,
            clock.currentTimeMillisUnsafe(),
            options.consistencyTimeout,
          );
        }
      }).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError(
                `Event processing has failed with an unrecoverable error for ${stream.key}. This seems to be a framework bug.`,
                cause,
              ),
        ),
      );
      // However it ends, the worker gives its first slot back and drops a stream it did not park.
      return Effect.onExitPrimitive(working, () => {
        if (ticket !== undefined) slots.release(ticket);
        if (!parked) drop(stream);
        return undefined;
      });
    };

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
        enqueue(existing, item);
        Pressure.raiseUnsafe(existing.pressure, fiber);
        return;
      }
      const carried = overdue.get(key);
      if (carried !== undefined) overdue.delete(key);
      const stream = ObjectStream.make(key, carried);
      streams.set(key, stream);
      enqueue(stream, item);
      places.enter(() => start(stream));
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

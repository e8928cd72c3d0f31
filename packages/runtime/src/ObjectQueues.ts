/**
 * Per-object queues and workers (Kopf's `queueing.watcher`/`worker`, docs/behaviour/watching.md#queues, docs/behaviour/watching.md#consistency): events are
 * demultiplexed by object key; one worker per object processes its events strictly in order,
 * one at a time, while different objects are processed concurrently (up to
 * `queueing.workerLimit` workers at once when set). A worker exits after `queueing.idleTimeout`
 * seconds without events (longer while a consistency wait is pending) and a new one starts with
 * the next event. The idle waits share one Clock timer (`internal/idleWaits.ts`), and the
 * gauges are set in place: a wait or a queued event costs no fibers of its own.
 *
 * At most `cycleLimit` cycles are in flight at once ({@link CYCLE_LIMIT} by default): the events
 * of further objects wait in their queues until a slot frees. A cycle gives its slot back while it
 * waits for anything but the framework's own work (handlers, sleeps, delays: {@link aside}), so a
 * slow or sleeping handler never holds up other objects (see `internal/cycleSlots.ts`). Without a
 * worker limit, an object's worker itself starts only when a slot is free for its first cycle:
 * until then the object is its queued events and flag, not a waiting fiber.
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
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as FiberSet from "effect/FiberSet";
import * as Option from "effect/Option";
import type * as Scope from "effect/Scope";
import * as Semaphore from "effect/Semaphore";
import * as CycleSlots from "./internal/cycleSlots.ts";
import * as IdleWaits from "./internal/idleWaits.ts";
import * as Metrics from "./Metrics.ts";
import * as Pressure from "./Pressure.ts";
import * as Tracing from "./Tracing.ts";

/** What processing gets besides the event. */
export interface WorkerContext {
  /** The object's pressure flag: sleeps must wake up when it is raised. */
  readonly pressure: Pressure.Pressure;
  /** Until when (Clock milliseconds) our own last patch's version is awaited; `undefined` if not awaited. */
  readonly consistencyTime: number | undefined;
  /**
   * Runs a wait of the cycle (a handler, a sleep) with its processing slot given back; none: the
   * cycle holds no slot (the effect just runs).
   */
  readonly aside?: CycleSlots.Aside | undefined;
}

/**
 * Runs `effect` — a wait of the cycle: a handler, a sleep — with the cycle's processing slot given
 * back meanwhile, so that other objects' cycles go on.
 *
 * @example
 * ```ts
 * const slept = yield* ObjectQueues.aside(context, Pressure.sleep(context.pressure, 10))
 * ```
 */
export const aside = <A, E, R>(
  context: WorkerContext,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> => (context.aside === undefined ? effect : context.aside(effect));

/**
 * The most processing cycles in flight at once by default: twice the client's connections for
 * plain requests, so they stay busy while the other half of the cycles prepare their patches.
 */
export const CYCLE_LIMIT = 64;

/**
 * Processes one event; returns the resource version to await (our patch's, or the one a re-read
 * found), `null` when nothing is awaited any more, or `undefined` to leave the awaiting as it is.
 */
export type Processor<R> = (
  event: RawEvent,
  context: WorkerContext,
) => Effect.Effect<string | null | undefined, never, R>;

/** How the queues behave (from `settings.queueing` and `settings.persistence`). Durations in seconds. */
export interface Options {
  readonly idleTimeout: number;
  readonly exitTimeout: number;
  /** The most workers running at once; `null`: unlimited. */
  readonly workerLimit: number | null;
  /** The most cycles in flight at once (their waits not counted); `null`: unlimited. Default {@link CYCLE_LIMIT}. */
  readonly cycleLimit?: number | null | undefined;
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
  /** The keys of objects with a running worker. */
  readonly active: () => ReadonlyArray<string>;
  /**
   * Ends every stream: sleeping workers are woken (their sleeps end as for a new event) and
   * finish what is queued within `exitTimeout` seconds; the rest are
   * interrupted with Kopf's warning "Unprocessed streams left for …".
   */
  readonly shutdown: Effect.Effect<void>;
}

const END = Symbol("end-of-stream");
/** A queued event with its arrival (Clock milliseconds), or the end of the stream. */
type Item = { readonly event: RawEvent; readonly arrived: number } | typeof END;

interface Stream {
  /** The queued items, oldest first. */
  readonly items: Array<Item>;
  /** Rung when an item is queued, for a worker waiting for one. */
  readonly bell: IdleWaits.Doorbell;
  readonly pressure: Pressure.Pressure;
  /** Events offered and not yet taken (the end-of-stream mark not counted). */
  pending: number;
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
): Effect.Effect<ObjectQueues, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const streams = new Map<string, Stream>();
    // Versions still awaited when their object's worker went idle: the object's next worker
    // awaits them on (an echo that comes after the worker exited is as stale as one before).
    const overdue = new Map<string, { readonly version: string; readonly deadline: number }>();
    const fibers = yield* FiberSet.make<void, never>();
    const limit = options.workerLimit === null ? undefined : yield* Semaphore.make(options.workerLimit);
    const runFork = yield* FiberSet.runtime(fibers)<R>();
    // The idle waits' timer runs in a set of its own: shutting down awaits the workers only.
    const waits = IdleWaits.make(yield* FiberSet.runtime(yield* FiberSet.make<void, never>())());
    const context = yield* Effect.context<never>();
    const slots = CycleSlots.make(options.cycleLimit === undefined ? CYCLE_LIMIT : options.cycleLimit);
    let closing = false;
    // The per-resource gauges of these queues: objects with a worker and events waiting. The
    // events are counted as they come and go (a sum over all queues per event would cost
    // O(objects) per event: quadratic in a burst of new objects).
    let queued = 0;
    const resource = options.resource;
    const measure = (): void => {
      if (resource === undefined) return;
      Metrics.gaugeUnsafe(context, Metrics.objectsQueued, resource, streams.size);
      Metrics.gaugeUnsafe(context, Metrics.eventsQueued, resource, queued);
    };
    const enqueue = (stream: Stream, item: Item) => {
      stream.items.push(item);
      stream.pending += 1;
      queued += 1;
      IdleWaits.ring(stream.bell);
    };

    // `ticket`: the slot its first cycle was admitted with (see `CycleSlots.admit`).
    const worker = (
      key: string,
      stream: Stream,
      ticket: CycleSlots.Ticket | undefined,
    ): Effect.Effect<void, never, R> =>
      Effect.gen(function* () {
        const clock = yield* Clock.Clock;
        const carried = overdue.get(key);
        if (carried !== undefined) overdue.delete(key);
        let expected: string | undefined = carried?.version;
        let consistencyTime: number | undefined = carried?.deadline;
        let continuing = false;
        while (true) {
          const now = clock.currentTimeMillisUnsafe();
          // Past the deadline the version stays awaited: processing re-reads the object then.
          const idle = Math.max(options.idleTimeout * 1000, (consistencyTime ?? now) - now);
          // An event already queued is taken at once; with none, wait for one until idle.
          let item = stream.items.shift();
          if (item === undefined) {
            const rung = yield* waits.wait(stream.bell, idle);
            if (stream.items.length === 0 && !rung) {
              streams.delete(key);
              if (expected !== undefined && consistencyTime !== undefined)
                overdue.set(key, { version: expected, deadline: consistencyTime });
              return;
            }
            if (!rung) continue;
            item = stream.items.shift();
            if (item === undefined) continue;
          }
          if (item === END) return;
          stream.pending -= 1;
          queued -= 1;
          const event = item.event;
          if (
            expected !== undefined &&
            (event.type === "DELETED" || ObjectKey.versionOf(event.object) === expected)
          ) {
            expected = undefined;
            consistencyTime = undefined;
          }
          if (stream.items.length === 0) Pressure.clearUnsafe(stream.pressure);
          measure();
          const arrived = item.arrived;
          const version = yield* slots.hold(
            (holder) => {
              const processing = process(event, {
                pressure: stream.pressure,
                consistencyTime,
                aside: holder.aside,
              });
              return resource === undefined
                ? processing
                : Metrics.cycle(resource, arrived, Tracing.cycle(resource, event, processing));
            },
            continuing,
            continuing ? undefined : ticket,
          );
          continuing = true;
          if (version === null) {
            expected = undefined;
            consistencyTime = undefined;
          } else if (version !== undefined && options.consistencyTimeout > 0) {
            expected = version;
            consistencyTime = clock.currentTimeMillisUnsafe() + options.consistencyTimeout * 1000;
          }
        }
      }).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError(
                `Event processing has failed with an unrecoverable error for ${key}. This seems to be a framework bug.`,
                cause,
              ),
        ),
        Effect.ensuring(
          Effect.sync(() => {
            if (ticket !== undefined) slots.release(ticket);
            if (streams.get(key) === stream) {
              streams.delete(key);
              queued -= stream.pending;
              stream.pending = 0;
            }
            measure();
          }),
        ),
      );

    const offer = (event: RawEvent): Effect.Effect<void> =>
      Effect.withFiber((fiber) => {
        if (closing) return Effect.void;
        const key = ObjectKey.of(event.object);
        const item = { event, arrived: fiber.getRef(Clock.Clock).currentTimeMillisUnsafe() };
        const existing = streams.get(key);
        if (existing !== undefined) {
          enqueue(existing, item);
          measure();
          return Pressure.raise(existing.pressure);
        }
        // A new stream's flag is raised from the start (nothing can wait on it yet).
        const stream: Stream = {
          items: [],
          bell: IdleWaits.doorbell(),
          pressure: Pressure.makeUnsafe(true),
          pending: 0,
        };
        streams.set(key, stream);
        enqueue(stream, item);
        measure();
        // With a worker limit, the worker starts at once and waits for its permit, then its slot
        // (a slot handed to a worker still waiting for a permit would stall the running ones).
        if (limit !== undefined) runFork(limit.withPermits(1)(worker(key, stream, undefined)));
        else
          slots.admit((ticket, later) => {
            const body = worker(key, stream, ticket);
            runFork(later ? Effect.andThen(Effect.yieldNow, body) : body);
          });
        return Effect.void;
      });

    const shutdown = Effect.gen(function* () {
      closing = true;
      // The objects not started yet start now, to drain within exitTimeout as the others do.
      slots.admitAll();
      for (const stream of streams.values()) {
        stream.items.push(END);
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
      yield* FiberSet.clear(fibers);
    });

    return { offer, active: () => [...streams.keys()], shutdown } satisfies ObjectQueues;
  });

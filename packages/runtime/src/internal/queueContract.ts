/**
 * What the object queues and the processing of one event agree on: the {@link Processor} the
 * queues run for each event and the {@link WorkerContext} it gets (the object's pressure flag, the
 * deadline of the version awaited, the slot's {@link aside}), and the {@link Quick} try of a cycle
 * at once with its answers {@link NOT_QUICK} and {@link AwaitNewer}. `ObjectQueues` re-exports it.
 */
import type { RawEvent } from "@kopf/structs";
import type * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type * as Pressure from "../Pressure.ts";
import type * as CycleSlots from "./cycleSlots.ts";

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
 * Processes one event; returns the resource version to await (our patch's, or the one a re-read
 * found), `null` when nothing is awaited any more, or `undefined` to leave the awaiting as it is.
 */
export type Processor<R> = (
  event: RawEvent,
  context: WorkerContext,
) => Effect.Effect<string | null | undefined, never, R>;

/** What a {@link Quick} try answers when the cycle needs an effect: nothing was done. */
export const NOT_QUICK: unique symbol = Symbol("@kopf/runtime/ObjectQueues/NOT_QUICK");

/**
 * What a {@link Quick} try answers when the cycle would need no effect but a wait for the echo of
 * the operator's own patch (its deadline ahead, no newer event queued): nothing was done yet. The
 * worker leaves the event first in line and, once a newer event is queued or the deadline has
 * passed, carries the cycle on from that wait with {@link resume}, holding no fiber, slot or timer
 * of its own meanwhile, where the cycle would have slept in its fiber: the cycle goes on once its
 * wait would have ended, as it would have then, without choosing its handlers again.
 */
export interface AwaitNewer {
  readonly _tag: "AwaitNewer";
  /**
   * The rest of the cycle, from its wait, tried at once: answers as a {@link Quick} try does;
   * {@link NOT_QUICK} (the wait's deadline passed: the object is re-read, an effect) leaves the
   * whole cycle to the processor, run afresh.
   */
  readonly resume: () => QuickAnswer | AwaitNewer;
}

/** What a {@link Quick} try answers, but for {@link AwaitNewer}. */
export type QuickAnswer = string | null | undefined | typeof NOT_QUICK;

/**
 * Whether a {@link Quick} try's answer is {@link AwaitNewer}.
 *
 * @example
 * ```ts
 * const tried = quick(event, context, services)
 * if (ObjectQueues.isAwaitNewer(tried)) park(tried.resume)
 * ```
 */
export const isAwaitNewer = (answer: QuickAnswer | AwaitNewer): answer is AwaitNewer =>
  typeof answer === "object" && answer !== null;

/**
 * Tries an event's cycle at once, synchronously, with the queues' `services`: its answer as the
 * {@link Processor} gives it if the whole cycle needed no effect (the echo of the operator's own
 * patch), {@link AwaitNewer} if it would but for the wait for that echo, or {@link NOT_QUICK},
 * with nothing done, for the processor to run it. A cycle done at once takes no processing slot
 * and makes no span (it is not tried while tracing).
 */
export type Quick = (
  event: RawEvent,
  context: WorkerContext,
  services: Context.Context<never>,
) => QuickAnswer | AwaitNewer;

/**
 * The quick steps of a per-object stream: its events taken, one after the other, while their
 * cycles are done at once (the `Quick` try of `queueContract.ts`: most of them are the echoes of
 * our own patches), until one needs the full processing, the stream is parked (idle, or awaiting
 * a newer event) or it ends. Plain code, run by a worker fiber between full cycles and, with no
 * fiber, by the queues' wake-up turn for a stream woken from its park. Also what follows every
 * cycle of a stream, quick or full: the version it awaits next.
 */
import type { RawEvent } from "@kopf/structs";
import type * as Clock from "effect/Clock";
import type * as Context from "effect/Context";
import * as Metrics from "../Metrics.ts";
import * as Pressure from "../Pressure.ts";
import * as AwaitedVersion from "./awaitedVersion.ts";
import type * as CycleSlots from "./cycleSlots.ts";
import * as ObjectStream from "./objectStream.ts";
import { type AwaitNewer, isAwaitNewer, NOT_QUICK, type Quick, type QuickAnswer } from "./queueContract.ts";
import * as StreamBook from "./streamBook.ts";
import type * as StreamParking from "./streamParking.ts";

/** What a cycle gives: the resource version its patch's response had, if it patched. */
export type Version = Exclude<QuickAnswer, typeof NOT_QUICK>;

/** An event taken from its stream for the full processing, with what its cycle runs under. */
export interface Full {
  readonly event: RawEvent;
  /** When the event was queued (Clock milliseconds). */
  readonly arrived: number;
  /** Until when our own last patch's version is awaited (see `WorkerContext`). */
  readonly consistencyTime: number | undefined;
  /** Whether a cycle of the stream ran before (its cycle is served before new objects'). */
  readonly continuing: boolean;
}

/** Whether the steps parked the stream (set once they have; the caller must not drop it then). */
export interface Parked {
  value: boolean;
}

/** The quick steps of one set of queues. */
export interface QuickSteps {
  /**
   * Takes `stream`'s events while their cycles are done at once and gives the first one whose
   * cycle needs the full processing; `undefined` when the stream was parked (`parked` says so) or
   * ended. `ticket`: the slot the stream's first cycle was admitted with, given back by a first
   * cycle done at once.
   */
  readonly steps: (
    stream: ObjectStream.ObjectStream,
    clock: Clock.Clock,
    ticket: CycleSlots.Ticket | undefined,
    parked: Parked,
  ) => Full | undefined;
  /** After a cycle of `stream`: it is continuing, and awaits the version its patch gave, if any. */
  readonly afterCycle: (stream: ObjectStream.ObjectStream, version: Version, clock: Clock.Clock) => void;
}

/** What the quick steps of a set of queues work with. */
export interface Deps {
  readonly book: StreamBook.StreamBook;
  readonly parking: StreamParking.StreamParking;
  readonly slots: CycleSlots.Slots;
  /** The quick try; none: every cycle gets the full processing (so while tracing). */
  readonly quick: Quick | undefined;
  /** The queues' services, for the quick try and the cycle count. */
  readonly context: Context.Context<never>;
  /** For metrics: the resource served (quick cycles are counted as cycles); none: not counted. */
  readonly resource: string | undefined;
  /** How long our own patch's version is awaited, in seconds (`0`: not at all). */
  readonly consistencyTimeout: number;
}

/**
 * The quick steps over the streams in `deps.book`.
 *
 * @example
 * ```ts
 * const quick = QuickSteps.make({ book, parking, slots, quick: tryCycle, context, resource, consistencyTimeout: 5 })
 * const full = quick.steps(stream, clock, ticket, { value: false })
 * ```
 */
export const make = ({
  book,
  parking,
  slots,
  quick,
  context,
  resource,
  consistencyTimeout,
}: Deps): QuickSteps => {
  // A cycle done at once is counted as a cycle, with no slot and no span.
  const counted = <A extends QuickAnswer | AwaitNewer>(done: A): A => {
    if (done !== NOT_QUICK && !isAwaitNewer(done) && resource !== undefined)
      Metrics.cycleUnsafe(context, resource);
    return done;
  };
  const afterCycle = (stream: ObjectStream.ObjectStream, version: Version, clock: Clock.Clock) => {
    stream.continuing = true;
    stream.awaited = AwaitedVersion.afterCycle(
      stream.awaited,
      version,
      clock.currentTimeMillisUnsafe(),
      consistencyTimeout,
    );
  };
  const steps = (
    stream: ObjectStream.ObjectStream,
    clock: Clock.Clock,
    ticket: CycleSlots.Ticket | undefined,
    parked: Parked,
  ): Full | undefined => {
    while (true) {
      const item = StreamBook.take(book, stream);
      if (item === undefined) {
        parked.value = true;
        parking.idle(stream, clock);
        return undefined;
      }
      if (item === ObjectStream.END) return undefined;
      const event = item.event;
      stream.awaited = AwaitedVersion.onEvent(stream.awaited, event);
      if (stream.items.length === 0) Pressure.clearUnsafe(stream.pressure);
      const consistencyTime = stream.awaited?.deadline;
      const continuing = stream.continuing;
      const tried =
        item.resume !== undefined
          ? counted(item.resume())
          : quick === undefined
            ? NOT_QUICK
            : counted(quick(event, { pressure: stream.pressure, consistencyTime }, context));
      if (isAwaitNewer(tried) && consistencyTime !== undefined) {
        parked.value = true;
        parking.awaitNewer(stream, item, tried, consistencyTime);
        return undefined;
      }
      if (tried === NOT_QUICK || isAwaitNewer(tried))
        return { event, arrived: item.arrived, consistencyTime, continuing };
      if (!continuing && ticket !== undefined) slots.release(ticket);
      afterCycle(stream, tried, clock);
    }
  };
  return { steps, afterCycle };
};

/**
 * How a stream of the per-object queues waits without a fiber: parked at its doorbell under the
 * queues' one idle-wait timer (`idleWaits.ts`), either idle (its queue empty: a new event wakes it,
 * the idle timeout ends it, keeping the version it still awaits) or awaiting a newer event (its
 * next event's cycle waits for the echo of our own patch: the event goes back first in line with
 * the rest of its cycle, and the stream is woken once a newer event rings or the echo's deadline
 * has passed). A woken stream is handed to `wake` (the queues' wake-up turn).
 */
import type * as Clock from "effect/Clock";
import type * as IdleWaits from "./idleWaits.ts";
import type * as ObjectStream from "./objectStream.ts";
import type { AwaitNewer } from "./queueContract.ts";
import * as StreamBook from "./streamBook.ts";

/** The parks of one set of queues. */
export interface StreamParking {
  /**
   * Parks an idle stream until its next event or its idle timeout (longer while the version it
   * awaits has a later deadline).
   */
  readonly idle: (stream: ObjectStream.ObjectStream, clock: Clock.Clock) => void;
  /**
   * Puts `item` back first in `stream`'s line with the rest of its cycle and parks the stream
   * until a newer event or `until` (Clock milliseconds), whichever comes first.
   */
  readonly awaitNewer: (
    stream: ObjectStream.ObjectStream,
    item: StreamBook.Queued,
    wait: AwaitNewer,
    until: number,
  ) => void;
}

/**
 * The parks of the streams in `book`, timed by `waits`; idle streams end after `idleTimeout`
 * seconds; woken streams go to `wake`.
 *
 * @example
 * ```ts
 * const parking = StreamParking.make(book, waits, settings.queueing.idleTimeout, turns.wake)
 * if (stream.items.length === 0) parking.idle(stream, clock)
 * ```
 */
export const make = (
  book: StreamBook.StreamBook,
  waits: IdleWaits.IdleWaits,
  idleTimeout: number,
  wake: (stream: ObjectStream.ObjectStream) => void,
): StreamParking => ({
  idle: (stream, clock) => {
    const at = clock.currentTimeMillisUnsafe();
    // Past the deadline the version stays awaited: processing re-reads the object then.
    const idle = Math.max(idleTimeout * 1000, (stream.awaited?.deadline ?? at) - at);
    waits.park(stream.bell, at + idle, (rung) => {
      if (rung) wake(stream);
      else StreamBook.expire(book, stream);
    });
  },
  awaitNewer: (stream, item, { resume }, until) => {
    StreamBook.requeue(book, stream, { event: item.event, arrived: item.arrived, resume });
    waits.park(stream.bell, until, () => wake(stream));
  },
});

/**
 * The per-object queues' book of streams: which objects have a stream, the events waiting in all
 * of them (counted as they come and go: a sum over the queues per event would cost O(objects) per
 * event, quadratic in a burst of new objects), the versions still awaited by streams that went
 * idle, and the places under the worker limit that the streams hold. Plain bookkeeping over plain
 * records; the queues' workers, parks and wake-up turns all keep it through these functions.
 */
import type * as AwaitedVersion from "./awaitedVersion.ts";
import * as IdleWaits from "./idleWaits.ts";
import * as ObjectStream from "./objectStream.ts";
import type * as WorkerPlaces from "./workerPlaces.ts";

/** An event queued in a stream (not the end-of-stream mark). */
export type Queued = Exclude<ObjectStream.Item, typeof ObjectStream.END>;

/** The book of one set of queues. */
export interface StreamBook {
  /** The objects' streams, by object key. */
  readonly streams: Map<string, ObjectStream.ObjectStream>;
  /**
   * Versions still awaited when their object's stream went idle: the object's next stream awaits
   * them on (an echo that comes after the stream ended is as stale as one before).
   */
  readonly overdue: Map<string, AwaitedVersion.Awaited>;
  /** The events waiting in all the streams. */
  queued: number;
  /** The places under the worker limit: a stream holds one from its start to its end. */
  readonly places: WorkerPlaces.Places;
}

/**
 * An empty book whose streams hold `places`.
 *
 * @example
 * ```ts
 * const book = StreamBook.make(WorkerPlaces.make(settings.queueing.workerLimit))
 * ```
 */
export const make = (places: WorkerPlaces.Places): StreamBook => ({
  streams: new Map(),
  overdue: new Map(),
  queued: 0,
  places,
});

/**
 * A new stream for `key`, entered in the book, awaiting what the object's last stream left
 * awaited (if anything). Its place under the worker limit is for the caller to ask for.
 *
 * @example
 * ```ts
 * const stream = book.streams.get(key) ?? StreamBook.open(book, key)
 * ```
 */
export const open = (book: StreamBook, key: string): ObjectStream.ObjectStream => {
  const carried = book.overdue.get(key);
  if (carried !== undefined) book.overdue.delete(key);
  const stream = ObjectStream.make(key, carried);
  book.streams.set(key, stream);
  return stream;
};

/**
 * Queues an event last in `stream`'s line and rings its doorbell (waking it if parked).
 *
 * @example
 * ```ts
 * StreamBook.enqueue(book, stream, { event, arrived: clock.currentTimeMillisUnsafe() })
 * ```
 */
export const enqueue = (book: StreamBook, stream: ObjectStream.ObjectStream, item: Queued): void => {
  stream.items.push(item);
  stream.pending += 1;
  book.queued += 1;
  IdleWaits.ring(stream.bell);
};

/**
 * Puts an event taken from `stream` back first in its line, counted as waiting again (the
 * doorbell is not rung: the stream parks until a newer event rings it).
 *
 * @example
 * ```ts
 * StreamBook.requeue(book, stream, { event, arrived, resume })
 * ```
 */
export const requeue = (book: StreamBook, stream: ObjectStream.ObjectStream, item: Queued): void => {
  stream.items.unshift(item);
  stream.pending += 1;
  book.queued += 1;
};

/**
 * Takes `stream`'s first item, uncounting it if it is an event; `undefined` if none is queued.
 *
 * @example
 * ```ts
 * const item = StreamBook.take(book, stream)
 * if (item === undefined) park(stream)
 * ```
 */
export const take = (book: StreamBook, stream: ObjectStream.ObjectStream): ObjectStream.Item | undefined => {
  const item = stream.items.shift();
  if (item !== undefined && item !== ObjectStream.END) {
    stream.pending -= 1;
    book.queued -= 1;
  }
  return item;
};

/**
 * Ends `stream` if it is still the book's stream of its object: its events are uncounted, and its
 * place under the worker limit goes to the next stream waiting for one.
 *
 * @example
 * ```ts
 * StreamBook.drop(book, stream)
 * ```
 */
export const drop = (book: StreamBook, stream: ObjectStream.ObjectStream): void => {
  if (book.streams.get(stream.key) !== stream) return;
  book.streams.delete(stream.key);
  book.queued -= stream.pending;
  stream.pending = 0;
  book.places.leave();
};

/**
 * Ends an idle `stream` as {@link drop} does, keeping the version it still awaits for its
 * object's next stream.
 *
 * @example
 * ```ts
 * waits.park(stream.bell, deadline, (rung) => (rung ? wake(stream) : StreamBook.expire(book, stream)))
 * ```
 */
export const expire = (book: StreamBook, stream: ObjectStream.ObjectStream): void => {
  if (stream.awaited !== undefined) book.overdue.set(stream.key, stream.awaited);
  drop(book, stream);
};

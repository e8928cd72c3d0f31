/**
 * One object's stream in the per-object queues: its queued events (oldest first, then possibly
 * the end-of-stream mark), the doorbell that wakes it while parked, its pressure flag, how many
 * events wait, the version of our own patch it still awaits, and whether a cycle of it has run.
 * A plain record: an object waiting for its turn, or idle, costs no fiber.
 */
import type { RawEvent } from "@kopf/structs";
import * as Pressure from "../Pressure.ts";
import type { Awaited } from "./awaitedVersion.ts";
import * as IdleWaits from "./idleWaits.ts";
import type { AwaitNewer } from "./queueContract.ts";

/** The mark that ends a stream (shutting down). */
export const END: unique symbol = Symbol("end-of-stream");
/**
 * A queued event with its arrival (Clock milliseconds), or the end of the stream. An event whose
 * cycle waits for our own patch's echo is queued again with the rest of that cycle (`resume`).
 */
export type Item =
  | { readonly event: RawEvent; readonly arrived: number; readonly resume?: AwaitNewer["resume"] }
  | typeof END;

/** An object's stream. */
export interface ObjectStream {
  readonly key: string;
  /** The queued items, oldest first. */
  readonly items: Array<Item>;
  /** Rung when an item is queued, while the stream is parked. */
  readonly bell: IdleWaits.Doorbell;
  readonly pressure: Pressure.Pressure;
  /** Events offered and not yet taken (the end-of-stream mark not counted). */
  pending: number;
  /** Our own patch's version still awaited, and until when. */
  awaited: Awaited | undefined;
  /** Whether a cycle of this stream has run: its next ones are served before new objects. */
  continuing: boolean;
}

/**
 * A new stream of `key`, awaiting what its object's previous stream left (if anything). Its flag
 * is raised from the start (nothing can wait on it yet).
 *
 * @example
 * ```ts
 * const stream = ObjectStream.make("ns1/x", undefined)
 * ```
 */
export const make = (key: string, awaited: Awaited | undefined): ObjectStream => ({
  key,
  items: [],
  bell: IdleWaits.doorbell(),
  pressure: Pressure.makeUnsafe(true),
  pending: 0,
  awaited,
  continuing: false,
});

/**
 * How busy the process's event loop is: the share of the time it spent running code rather than
 * waiting for I/O or timers, between two readings of one reader. The queues read it to adapt their
 * limit of cycles in flight (see `CycleLimit.ts`); without this service in the context they do not
 * adapt. The live reading is edge code (`node/LoopUtilization.ts`, Node.js's event loop
 * utilization); tests give a `Shape` of their own.
 */
import * as Context from "effect/Context";

/** The service: readers of the event loop's load. */
export interface Shape {
  /**
   * A new reader: each call of it returns the share of busy time (0..1) since its previous call
   * (the first: since the reader was made). Readers are independent of each other.
   */
  readonly reader: () => () => number;
}

/**
 * The event loop's load, for the queues' adaptive cycle limit.
 *
 * @example
 * ```ts
 * const read = (yield* LoopLoad).reader()
 * const busy = read() // e.g. 0.97 in a burst
 * ```
 */
export class LoopLoad extends Context.Service<LoopLoad, Shape>()("@kopf/runtime/LoopLoad") {}

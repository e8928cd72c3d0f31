/**
 * The adaptive limit of cycles in flight (`queueing.adaptiveCycleLimit`, see the queues in
 * docs/behaviour/watching.md): how many objects of one watcher may be in the middle of a processing
 * cycle at once, decided again while cycles wait for a slot, from how busy the process's event loop
 * was since the last decision.
 *
 * A cycle holds its slot while its requests are answered. When the API server is far away, many
 * cycles in flight keep the process busy while each waits for its answers, so the limit must be
 * high. When the process itself is the bottleneck (a burst of objects against a near API server),
 * the event loop is saturated: a cycle beyond what it serves only waits for the loop, holding its
 * event, its patch, its fibers and a connection, and adds to the peak of the burst's memory without
 * adding throughput. So a saturated loop lowers the limit a step (down to half of
 * `queueing.cycleLimit`), and a loop with slack raises it a step (up to `queueing.cycleLimit`) while
 * cycles wait; between the two thresholds it stays. The limit settles where the loop is busy but
 * not saturated. Steps rather than halving: a single saturated reading (a collection, a batch of
 * watch events) costs an eighth of the slots for one reading, not half of them. Halving on any
 * reading of 90% took a sixth off the objects handled per second with an API server 20 ms away
 * (docs/performance.md).
 *
 * Pure and total: a reading that is not a number within 0..1 leaves the limit as it is.
 */

/** At or above this share of busy time the event loop is saturated: the limit is lowered a step. */
export const SATURATED = 0.95;

/** Below this share of busy time, with cycles waiting, the limit is raised a step. */
export const SLACK = 0.85;

/** The range the limit moves in, from `queueing.cycleLimit`. */
export interface Bounds {
  /** The configured limit: never exceeded. */
  readonly most: number;
  /** Half of it (at least 1): never gone below. */
  readonly least: number;
  /** How much one decision moves the limit: an eighth of `most` (at least 1). */
  readonly step: number;
}

/** What the event loop did since the last decision. */
export interface Reading {
  /** The share of the time the event loop was busy (0..1). */
  readonly utilization: number;
  /** Whether cycles are waiting for a slot now. */
  readonly waiting: boolean;
}

/**
 * The bounds of a configured limit.
 *
 * @example
 * ```ts
 * CycleLimit.bounds(32) // { most: 32, least: 16, step: 4 }
 * ```
 */
export const bounds = (most: number): Bounds => {
  const top = Math.max(1, Math.floor(most));
  return { most: top, least: Math.max(1, Math.ceil(top / 2)), step: Math.max(1, Math.ceil(top / 8)) };
};

/**
 * The limit after a reading: a step lower when the loop was saturated, a step higher when it had
 * slack and cycles wait, else as it was; always within the bounds.
 *
 * @example
 * ```ts
 * const b = CycleLimit.bounds(32)
 * CycleLimit.next(32, { utilization: 0.98, waiting: true }, b) // 28
 * CycleLimit.next(16, { utilization: 0.4, waiting: true }, b) // 20
 * CycleLimit.next(16, { utilization: 0.4, waiting: false }, b) // 16
 * ```
 */
export const next = (limit: number, reading: Reading, b: Bounds): number => {
  const current = Number.isFinite(limit) ? Math.min(b.most, Math.max(b.least, Math.floor(limit))) : b.most;
  const u = reading.utilization;
  if (!(u >= 0 && u <= 1)) return current;
  if (u >= SATURATED) return Math.max(b.least, current - b.step);
  if (u < SLACK && reading.waiting) return Math.min(b.most, current + b.step);
  return current;
};

/**
 * The places of the per-object queues under `queueing.workerLimit`: how many objects have a
 * worker at once, idle ones included (an idle worker keeps its place until it ends, as in Kopf).
 * The objects beyond the limit wait, with their events, and start in arrival order as places free.
 * It is plain bookkeeping: a waiting object is a callback here, not a fiber.
 */

/** The places of one set of queues. */
export interface Places {
  /** Calls `start` once the object has a place: at once if one is free, or when one is left. */
  readonly enter: (start: () => void) => void;
  /** Leaves a place: the next object waiting gets it (its `start` runs on the caller's stack). */
  readonly leave: () => void;
}

const unlimited: Places = { enter: (start) => start(), leave: () => {} };

/**
 * Places for at most `limit` workers at once; `null`: no limit.
 *
 * @example
 * ```ts
 * const places = WorkerPlaces.make(settings.queueing.workerLimit)
 * places.enter(() => runFork(worker)) // and places.leave() when the object's worker ends
 * ```
 */
export const make = (limit: number | null): Places => {
  if (limit === null) return unlimited;
  let taken = 0;
  const waiting: Array<() => void> = [];
  return {
    enter: (start) => {
      if (taken < limit) {
        taken += 1;
        start();
      } else waiting.push(start);
    },
    leave: () => {
      const next = waiting.shift();
      if (next === undefined) taken -= 1;
      else next();
    },
  };
};

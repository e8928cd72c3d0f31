/**
 * The processing slots of the per-object queues: how many objects are in the middle of a
 * processing cycle at once. A cycle in flight holds its event, its patch, its handlers' outcomes
 * and its fibers until its last request is answered; in a burst of thousands of new objects every
 * cycle would otherwise start at once and wait behind the client's few connections, each holding
 * all of that. With slots, the cycles beyond the limit wait before they start, holding only their
 * queued event.
 *
 * A slot is held only while the framework works for the object (decides, patches, posts). A cycle
 * gives its slot back while it waits for anything else — a handler running, a sleep, a delay, a
 * throttling, the indexes — through its holder's `aside`, and takes one back afterwards ahead of
 * the cycles that have not started yet (so the cycles already started finish first and the ones in
 * flight stay near the limit). A sleeping or slow handler therefore never keeps other objects
 * waiting, and every waiting cycle gets a slot as soon as one of the limited cycles' steps ends.
 */
import * as Effect from "effect/Effect";

/** Runs a wait of a cycle (the effect given) with its slot given back. */
export type Aside = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;

/** One cycle's hold of a slot. */
export interface Holder {
  /**
   * Runs `effect` with the slot given back, and takes one back (before any cycle not started yet)
   * once it ends, however it ends. Outside of a hold, or nested, it just runs `effect`.
   */
  readonly aside: Aside;
}

/** The slots of one set of queues. */
export interface Slots {
  /**
   * Runs a cycle in a slot: waits for one, gives it back when the cycle ends (or is interrupted).
   * A `continuing` cycle (of an object whose earlier cycle just ended: the echo of its own patch)
   * is served with the cycles resuming after a wait, before the objects not started yet.
   */
  readonly hold: <A, E, R>(
    cycle: (holder: Holder) => Effect.Effect<A, E, R>,
    continuing?: boolean,
  ) => Effect.Effect<A, E, R>;
}

const unlimited: Slots = { hold: (cycle) => cycle({ aside: (effect) => effect }) };

/** Whether a cycle holds a slot now (set when the slot is handed over, so none is ever lost). */
interface Owner {
  held: boolean;
}

/**
 * Slots for at most `limit` cycles at once; `null`: no limit.
 *
 * @example
 * ```ts
 * const slots = CycleSlots.make(64)
 * yield* slots.hold((holder) => processEvent(event, { aside: holder.aside }))
 * ```
 */
export const make = (limit: number | null): Slots => {
  if (limit === null) return unlimited;
  let free = limit;
  // Cycles that gave their slot back for a wait come first; then new cycles, in arrival order.
  const resuming: Array<() => void> = [];
  const starting: Array<() => void> = [];

  const give = (owner: Owner) => {
    owner.held = false;
    const next = resuming.shift() ?? starting.shift();
    if (next === undefined) free += 1;
    else next();
  };

  const take = (owner: Owner, queue: Array<() => void>) =>
    Effect.withFiber((fiber) =>
      Effect.callback<void>((resume) => {
        if (free > 0) {
          free -= 1;
          owner.held = true;
          resume(Effect.void);
          return;
        }
        // The slot is the waiter's from the moment it is handed over; its fiber resumes in a task
        // of its own (resuming it right away would run it on the giver's stack, one in another).
        const grant = () => {
          owner.held = true;
          fiber.currentDispatcher.scheduleTask(() => resume(Effect.void), 0);
        };
        queue.push(grant);
        // Interrupted while waiting: leave the queue (a slot granted meanwhile is given back by
        // the hold's finalizer, as `owner.held` says).
        return Effect.sync(() => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
        });
      }),
    );

  const hold = <A, E, R>(
    cycle: (holder: Holder) => Effect.Effect<A, E, R>,
    continuing = false,
  ): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const owner: Owner = { held: false };
      const aside = <A2, E2, R2>(effect: Effect.Effect<A2, E2, R2>): Effect.Effect<A2, E2, R2> =>
        Effect.suspend(() => {
          if (!owner.held) return effect;
          give(owner);
          return Effect.flatMap(Effect.exit(effect), (exit) => Effect.andThen(take(owner, resuming), exit));
        });
      // A free slot is taken at once (no cycle waits for one then); otherwise the cycle queues.
      return Effect.suspend(() => {
        if (free > 0) {
          free -= 1;
          owner.held = true;
          return cycle({ aside });
        }
        return Effect.andThen(
          take(owner, continuing ? resuming : starting),
          Effect.suspend(() => cycle({ aside })),
        );
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (owner.held) give(owner);
          }),
        ),
      );
    });

  return { hold };
};

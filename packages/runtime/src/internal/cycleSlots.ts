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
 * The slot is given back only once the wait has begun (the cycle's fiber yielded): a wait that
 * ends at once, such as a handler that returns without awaiting, keeps its slot. Handing it over
 * and queueing to take one back would only send the cycle behind the others, its data gone cold
 * in the processor's caches by the time it resumes (measured in docs/performance.md, "Waits that
 * end at once"). Nested asides give the slot back once, and take it back once.
 *
 * An object's worker need not exist before its first cycle can run: `admit` calls back when a slot
 * is free for it (at once, or when one is given back) and hands that slot over as a ticket for the
 * worker's first cycle. Until then, an object of a burst is only its queued events, not a fiber
 * waiting with its effect stack and closures.
 *
 * The limit can change while cycles run (`resize`, from the adaptive cycle limit, `CycleLimit.ts`):
 * a raised limit hands its new slots to the waiting cycles at once; a lowered one takes slots back
 * as the cycles holding them give them back, never from a cycle in flight.
 */
import * as Effect from "effect/Effect";

/** Runs a wait of a cycle (the effect given) with its slot given back. */
export type Aside = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;

/** One cycle's hold of a slot. */
export interface Holder {
  /**
   * Runs `effect` with the slot given back once it waits (not if it ends at once), and takes one
   * back (before any cycle not started yet) once it ends, however it ends. Outside of a hold, or
   * nested, it just runs `effect`.
   */
  readonly aside: Aside;
}

/** A slot handed over before its cycle started (by `admit`); `held` until that cycle gives it back. */
export interface Ticket {
  held: boolean;
}

/**
 * Starts an admitted worker with its first cycle's slot (`undefined`: none, its first cycle takes
 * one as usual); `later` when called from another cycle's step (the worker must then not run on
 * that stack).
 */
export type Start = (ticket: Ticket | undefined, later: boolean) => void;

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
    ticket?: Ticket,
  ) => Effect.Effect<A, E, R>;
  /**
   * Calls `start` once a slot is free for a new object (at once if one is; otherwise after the
   * cycles waiting already), with the slot as its ticket, to pass to the first `hold`.
   */
  readonly admit: (start: Start) => void;
  /** Gives back a ticket's slot if its cycle never ran (its worker ended first). */
  readonly release: (ticket: Ticket) => void;
  /** The limit now; `null`: none. */
  readonly limit: () => number | null;
  /** Sets the limit (at least 1; a limit that is not a finite number is ignored); without a limit, nothing. */
  readonly resize: (limit: number) => void;
  /** How many cycles and new objects wait for a slot now. */
  readonly waiting: () => number;
  /**
   * Calls `callback` once, as soon as anything waits for a slot (at once if something does);
   * a later call replaces an earlier callback not called yet. Never, without a limit.
   */
  readonly whenWaiting: (callback: () => void) => void;
}

const unlimited: Slots = {
  hold: (cycle) => cycle({ aside: (effect) => effect }),
  admit: (start) => start(undefined, false),
  release: () => {},
  limit: () => null,
  resize: () => {},
  waiting: () => 0,
  whenWaiting: () => {},
};

/** Whether a cycle holds a slot now (set when the slot is handed over, so none is ever lost). */
type Owner = Ticket;

/**
 * Slots for at most `limit` cycles at once; `null`: no limit.
 *
 * @example
 * ```ts
 * const slots = CycleSlots.make(64)
 * yield* slots.hold((holder) => processEvent(event, { aside: holder.aside }))
 * ```
 */
export const make = (initial: number | null): Slots => {
  if (initial === null) return unlimited;
  let limit = initial;
  // Negative after the limit was lowered below the slots held: so many given back go away.
  let free = limit;
  // Cycles that gave their slot back for a wait come first; then new cycles, in arrival order.
  const resuming: Array<() => void> = [];
  const starting: Array<() => void> = [];
  // Objects whose worker has not started yet, after those.
  const admitting: Array<Start> = [];
  const waiting = () => resuming.length + starting.length + admitting.length;
  let watcher: (() => void) | undefined;
  /** Something was queued: the callback waiting for that, if any, is called (once). */
  const queued = () => {
    const callback = watcher;
    if (callback === undefined) return;
    watcher = undefined;
    callback();
  };

  /** Hands a slot to the next waiter; whether one waited. */
  const handOver = (): boolean => {
    const next = resuming.shift() ?? starting.shift();
    if (next !== undefined) {
      next();
      return true;
    }
    const start = admitting.shift();
    if (start === undefined) return false;
    start({ held: true }, true);
    return true;
  };

  const give = (owner: Owner) => {
    owner.held = false;
    if (free < 0) free += 1;
    else if (!handOver()) free += 1;
  };

  const resize = (to: number) => {
    if (!Number.isFinite(to)) return;
    const next = Math.max(1, Math.floor(to));
    free += next - limit;
    limit = next;
    while (free > 0 && handOver()) free -= 1;
  };

  const whenWaiting = (callback: () => void) => {
    watcher = callback;
    if (waiting() > 0) queued();
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
        queued();
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
    ticket?: Ticket,
  ): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const owner: Owner = ticket?.held === true ? ticket : { held: false };
      const aside = <A2, E2, R2>(effect: Effect.Effect<A2, E2, R2>): Effect.Effect<A2, E2, R2> =>
        Effect.withFiber((fiber) => {
          if (!owner.held) return effect;
          // The slot is given back in a task of its own, which runs only once the fiber has
          // yielded: an effect that ends without waiting (a handler that returns at once, a sleep
          // cut short) keeps it, with no hand-over to another cycle and no wait to take it back.
          const wait = { ended: false, gave: false };
          fiber.currentDispatcher.scheduleTask(() => {
            if (wait.ended || !owner.held) return;
            wait.gave = true;
            give(owner);
          }, 0);
          return Effect.flatMap(Effect.exit(effect), (exit) => {
            wait.ended = true;
            return wait.gave ? Effect.andThen(take(owner, resuming), exit) : exit;
          });
        });
      // A free slot is taken at once (no cycle waits for one then); otherwise the cycle queues.
      // However the cycle ends, a slot it holds is given back (a finalizer with no effect of its own).
      const held = Effect.suspend(() => {
        if (owner.held) return cycle({ aside });
        if (free > 0) {
          free -= 1;
          owner.held = true;
          return cycle({ aside });
        }
        return Effect.andThen(
          take(owner, continuing ? resuming : starting),
          Effect.suspend(() => cycle({ aside })),
        );
      });
      return Effect.onExitPrimitive(held, () => {
        if (owner.held) give(owner);
        return undefined;
      });
    });

  const admit = (start: Start) => {
    if (free > 0) {
      free -= 1;
      start({ held: true }, false);
    } else {
      admitting.push(start);
      queued();
    }
  };

  const release = (ticket: Ticket) => {
    if (ticket.held) give(ticket);
  };

  return { hold, admit, release, limit: () => limit, resize, waiting, whenWaiting };
};

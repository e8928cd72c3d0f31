/**
 * The idle waits of the per-object queues, each bounded by an idle deadline, all served by one
 * Clock timer. An object whose queue is empty is parked at its doorbell: the park ends when the
 * doorbell rings (an event or the end of its stream was queued) or when its deadline passes,
 * whichever comes first, by calling back. No fiber waits meanwhile: timing every wait on its own (a
 * race of the wait and a sleep) cost two fibers and a timer per wait, and even one waiting fiber per
 * object kept its effect stack alive for the idle timeout after every burst; here a park is an
 * entry in a heap of deadlines, and a single timer fiber sleeps until the earliest deadline still
 * parked, ends the parks that are due and sleeps again (ending itself when none is left). Parks
 * ended by their doorbell stay in the heap, marked as settled, until the timer reaches them.
 */
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";

/** Where an object is parked: `ring` is set while it is. */
export interface Doorbell {
  ring: (() => void) | undefined;
}

/** A doorbell nobody is parked at yet. */
export const doorbell = (): Doorbell => ({ ring: undefined });

/** Ends the park at `bell`, if any (its callback gets `true`, on the ringer's stack). */
export const ring = (bell: Doorbell): void => {
  const wake = bell.ring;
  if (wake !== undefined) wake();
};

/** The idle waits of one set of queues. */
export interface IdleWaits {
  /**
   * Parks at `bell` until it rings (`end(true)`, on the ringer's stack) or the Clock reaches
   * `deadline` milliseconds (`end(false)`, in the timer's fiber), whichever comes first; `end` is
   * called once. A bell has one park at a time.
   */
  readonly park: (bell: Doorbell, deadline: number, end: (rung: boolean) => void) => void;
}

/** One park: its deadline (Clock milliseconds) and how it ends; settled once it has ended. */
interface Entry {
  readonly deadline: number;
  settled: boolean;
  readonly settle: (rung: boolean) => void;
}

/** A running timer fiber and the deadline it sleeps until. */
interface Timer {
  target: number;
  fiber: Fiber.Fiber<void> | undefined;
}

/**
 * Idle waits whose timer runs through `fork` (a fiber of the queues' scope, so closing it ends the
 * timer; the parks left then never end).
 *
 * @example
 * ```ts
 * const waits = IdleWaits.make(FiberSet.runtime(timers)())
 * waits.park(stream.bell, now + 5_000, (rung) => (rung ? resume() : forget()))
 * ```
 */
export const make = (fork: (effect: Effect.Effect<void>) => Fiber.Fiber<void>): IdleWaits => {
  // A binary min-heap of the entries by deadline.
  const heap: Array<Entry> = [];
  const at = (index: number): Entry => heap[index] as Entry;
  const push = (entry: Entry) => {
    let index = heap.push(entry) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (at(parent).deadline <= entry.deadline) break;
      heap[index] = at(parent);
      index = parent;
    }
    heap[index] = entry;
  };
  /** Removes and returns the earliest entry, if any. */
  const pop = (): Entry | undefined => {
    const first = heap[0];
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return first;
    let index = 0;
    while (true) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && at(right).deadline < at(left).deadline ? right : left;
      if (at(child).deadline >= last.deadline) break;
      heap[index] = at(child);
      index = child;
    }
    heap[index] = last;
    return first;
  };

  let timer: Timer | undefined;
  const run = (mine: Timer): Effect.Effect<void> =>
    Effect.gen(function* () {
      while (timer === mine) {
        const now = yield* Clock.currentTimeMillis;
        let first = heap[0];
        while (first !== undefined && (first.settled || first.deadline <= now)) {
          pop()?.settle(false);
          first = heap[0];
        }
        if (first === undefined) {
          timer = undefined;
          return;
        }
        mine.target = first.deadline;
        yield* Effect.sleep(Duration.millis(mine.target - now));
      }
    }).pipe(
      // An interrupted timer (its scope closing) is no longer counted on: the next wait starts one.
      Effect.ensuring(
        Effect.sync(() => {
          if (timer === mine) timer = undefined;
        }),
      ),
    );
  // A deadline earlier than the running timer's target starts a timer for it (the old one ends).
  const schedule = (deadline: number) => {
    if (timer !== undefined && timer.target <= deadline) return;
    const old = timer;
    const mine: Timer = { target: deadline, fiber: undefined };
    timer = mine;
    old?.fiber?.interruptUnsafe();
    const fiber = fork(run(mine));
    if (timer === mine) mine.fiber = fiber;
  };

  const park = (bell: Doorbell, deadline: number, end: (rung: boolean) => void) => {
    const entry: Entry = {
      deadline,
      settled: false,
      settle: (rung) => {
        if (entry.settled) return;
        entry.settled = true;
        bell.ring = undefined;
        end(rung);
      },
    };
    bell.ring = () => entry.settle(true);
    push(entry);
    schedule(deadline);
  };

  return { park };
};

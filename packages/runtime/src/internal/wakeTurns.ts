/**
 * The wake-up turns of the per-object queues: streams woken from their park (an event rang their
 * doorbell, or the deadline of an awaited echo passed) are served together in one later task of a
 * single fiber, in the order they were woken, instead of a fiber each. The task runs after the
 * offers that woke them have returned (their pressure flags are raised by then), not on the
 * offers' stack; a stream woken while a turn runs is served in that turn, and the streams left by
 * a turn that failed get the next one.
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";

/** Where woken items are handed in. */
export interface WakeTurns<A> {
  /** Serves `item` in the current turn if one runs, else in a new one after the current task. */
  readonly wake: (item: A) => void;
}

/**
 * Wake-up turns that fork each turn with `fork` and serve every item woken with `serve` (given the
 * turn's clock); nothing is served once `stopped()` answers `true`. `serve` is plain code: what
 * needs a fiber, it forks itself.
 *
 * @example
 * ```ts
 * const turns = WakeTurns.make(runFork, (stream, clock) => serveWoken(stream, clock), () => finished)
 * waits.park(stream.bell, deadline, (rung) => (rung ? turns.wake(stream) : drop(stream)))
 * ```
 */
export const make = <A>(
  fork: (effect: Effect.Effect<void>) => unknown,
  serve: (item: A, clock: Clock.Clock) => void,
  stopped: () => boolean,
): WakeTurns<A> => {
  const woken: Array<A> = [];
  const turn = Effect.withFiber((fiber) => {
    const clock = fiber.getRef(Clock.Clock);
    try {
      for (let item = woken.shift(); item !== undefined && !stopped(); item = woken.shift())
        serve(item, clock);
    } finally {
      // A `serve` that threw ends this turn (its fiber dies of the defect); the items left get a
      // turn of their own rather than wait, unserved, behind a turn that will never run.
      if (woken.length > 0 && !stopped()) fork(next);
      else woken.length = 0;
    }
    return Effect.void;
  });
  const next: Effect.Effect<void> = Effect.andThen(Effect.yieldNow, turn);
  return {
    wake: (item) => {
      if (stopped()) return;
      woken.push(item);
      // The first item since the last turn took them all starts the next turn.
      if (woken.length === 1) fork(next);
    },
  };
};

/**
 * The per-object "pressure" flag (Kopf's `stream_pressure`, docs/behaviour/watching.md#queues): raised whenever a new
 * event of the object is queued, cleared by the worker before it processes the last queued
 * event. Every sleep inside processing (delays before touching, consistency waits, throttling)
 * is cut short by it, so a newer event is never kept waiting behind an older one's sleep.
 *
 * Every object with queued events has one, so it is a plain record: a flag and, only while a sleep
 * waits on it, the list of sleepers to wake (an Effect `Latch` would cost several effects and
 * closures per object, all of them kept while thousands of objects wait in a burst).
 */
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";

/** A pressure flag. */
export interface Pressure {
  /** Whether the flag is raised. */
  raised: boolean;
  /** Sleeps cut short when it is raised; none while nothing sleeps on it. */
  sleepers: Array<() => void> | undefined;
}

/**
 * A new, lowered flag.
 *
 * @example
 * ```ts
 * const pressure = yield* Pressure.make
 * ```
 */
export const make: Effect.Effect<Pressure> = Effect.sync(() => makeUnsafe());

/** A new flag, lowered unless `raised`, outside of an effect (for synchronous set-up). */
export const makeUnsafe = (raised = false): Pressure => ({ raised, sleepers: undefined });

/**
 * Raises the flag: sleeping processing wakes up.
 *
 * @example
 * ```ts
 * yield* Pressure.raise(pressure) // a new event was queued
 * ```
 */
export const raise = (pressure: Pressure): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    raiseUnsafe(pressure, fiber);
    return Effect.void;
  });

/**
 * Raises the flag from code that runs on a fiber already (its dispatcher wakes the sleepers).
 *
 * @example
 * ```ts
 * Effect.withFiber((fiber) => { Pressure.raiseUnsafe(pressure, fiber); return Effect.void })
 * ```
 */
export const raiseUnsafe = (pressure: Pressure, fiber: Fiber.Fiber<unknown, unknown>): void => {
  pressure.raised = true;
  const sleepers = pressure.sleepers;
  if (sleepers !== undefined) {
    pressure.sleepers = undefined;
    // The sleepers wake in a task of their own, not on the raiser's stack.
    fiber.currentDispatcher.scheduleTask(() => {
      for (const wake of sleepers) wake();
    }, 0);
  }
};

/**
 * Lowers the flag.
 *
 * @example
 * ```ts
 * yield* Pressure.clear(pressure) // before processing the last queued event
 * ```
 */
export const clear = (pressure: Pressure): Effect.Effect<void> =>
  Effect.sync(() => {
    clearUnsafe(pressure);
  });

/** The same as {@link clear}, at once (for code running in a fiber already). */
export const clearUnsafe = (pressure: Pressure): void => {
  pressure.raised = false;
};

/**
 * Whether the flag is raised now.
 *
 * @example
 * ```ts
 * if (Pressure.isRaised(pressure)) return // newer events wait
 * ```
 */
export const isRaised = (pressure: Pressure): boolean => pressure.raised;

/** Waits until the flag is raised (at once if it is). */
const raised = (pressure: Pressure): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (pressure.raised) {
      resume(Effect.void);
      return;
    }
    const wake = () => resume(Effect.void);
    if (pressure.sleepers === undefined) pressure.sleepers = [wake];
    else pressure.sleepers.push(wake);
    // Interrupted (the sleep elapsed first): leave the list.
    return Effect.sync(() => {
      const sleepers = pressure.sleepers;
      const at = sleepers === undefined ? -1 : sleepers.indexOf(wake);
      if (sleepers !== undefined && at >= 0) {
        sleepers.splice(at, 1);
        if (sleepers.length === 0) pressure.sleepers = undefined;
      }
    });
  });

/** How a sleep ended. */
export interface Slept {
  /** The whole duration elapsed. */
  readonly fully: boolean;
  /** Seconds left when new changes cut the sleep short (0 when it elapsed). */
  readonly left: number;
}

/**
 * How a sleep of `seconds` on `pressure` ends without waiting at all, if it does: a non-positive
 * duration has elapsed already (raised flag or not); a raised flag cuts any other short at once.
 * `undefined`: the sleep must wait.
 *
 * @example
 * ```ts
 * Pressure.endsAtOnce(pressure, 10) // { fully: false, left: 10 } once a newer event is queued
 * ```
 */
export const endsAtOnce = (pressure: Pressure | undefined, seconds: number): Slept | undefined => {
  if (seconds <= 0) return { fully: true, left: 0 };
  if (pressure !== undefined && isRaised(pressure)) return { fully: false, left: seconds };
  return undefined;
};

/**
 * Sleeps for `seconds` unless the flag is raised (already or meanwhile): `fully` when the whole
 * sleep elapsed, otherwise the seconds `left`. A non-positive duration has elapsed already,
 * raised flag or not.
 *
 * @example
 * ```ts
 * const slept = yield* Pressure.sleep(pressure, 10)
 * if (!slept.fully) yield* Effect.logDebug(`Sleeping was interrupted by new changes, ${slept.left} seconds left.`)
 * ```
 */
export const sleep = (pressure: Pressure | undefined, seconds: number): Effect.Effect<Slept> =>
  Effect.gen(function* () {
    const atOnce = endsAtOnce(pressure, seconds);
    if (atOnce !== undefined) return atOnce;
    const slept = Effect.as(Effect.sleep(Duration.seconds(seconds)), true);
    if (pressure === undefined) return { fully: yield* slept, left: 0 };
    const start = yield* Clock.currentTimeMillis;
    const fully = yield* Effect.raceFirst(slept, Effect.as(raised(pressure), false));
    if (fully) return { fully, left: 0 };
    const end = yield* Clock.currentTimeMillis;
    return { fully, left: Math.max(0, seconds - (end - start) / 1000) };
  });

/**
 * The per-object "pressure" flag (Kopf's `stream_pressure`, docs/behaviour/watching.md#queues): raised whenever a new
 * event of the object is queued, cleared by the worker before it processes the last queued
 * event. Every sleep inside processing (delays before touching, consistency waits, throttling)
 * is cut short by it, so a newer event is never kept waiting behind an older one's sleep.
 */
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Latch from "effect/Latch";

/** A pressure flag. */
export interface Pressure {
  readonly latch: Latch.Latch;
}

/**
 * A new, lowered flag.
 *
 * @example
 * ```ts
 * const pressure = yield* Pressure.make
 * ```
 */
export const make: Effect.Effect<Pressure> = Effect.map(Latch.make(false), (latch) => ({ latch }));

/** A new flag, lowered unless `raised`, outside of an effect (for synchronous set-up). */
export const makeUnsafe = (raised = false): Pressure => ({ latch: Latch.makeUnsafe(raised) });

/**
 * Raises the flag: sleeping processing wakes up.
 *
 * @example
 * ```ts
 * yield* Pressure.raise(pressure) // a new event was queued
 * ```
 */
export const raise = (pressure: Pressure): Effect.Effect<void> => Effect.asVoid(pressure.latch.open);

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
  pressure.latch.closeUnsafe();
};

/**
 * Whether the flag is raised now.
 *
 * @example
 * ```ts
 * if (Pressure.isRaised(pressure)) return // newer events wait
 * ```
 */
export const isRaised = (pressure: Pressure): boolean => Latch.isOpen(pressure.latch);

/** How a sleep ended. */
export interface Slept {
  /** The whole duration elapsed. */
  readonly fully: boolean;
  /** Seconds left when new changes cut the sleep short (0 when it elapsed). */
  readonly left: number;
}

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
    if (seconds <= 0) return { fully: true, left: 0 };
    if (pressure !== undefined && isRaised(pressure)) return { fully: false, left: seconds };
    const slept = Effect.as(Effect.sleep(Duration.seconds(seconds)), true);
    if (pressure === undefined) return { fully: yield* slept, left: 0 };
    const start = yield* Clock.currentTimeMillis;
    const fully = yield* Effect.raceFirst(slept, Effect.as(pressure.latch.await, false));
    if (fully) return { fully, left: 0 };
    const end = yield* Clock.currentTimeMillis;
    return { fully, left: Math.max(0, seconds - (end - start) / 1000) };
  });

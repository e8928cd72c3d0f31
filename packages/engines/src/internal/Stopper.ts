/**
 * The stop flag of one daemon or timer (Kopf's `DaemonStopper`, docs/behaviour/daemons-timers.md#common-rules): the reasons it was
 * stopped for (combinable), the clock time it was first stopped at (for the stopping procedure's
 * ages), and the `stopped` value handlers get — an `AbortSignal` (aborted on the first stop, so it
 * can be passed to `fetch` and friends) that also implements the registry's `DaemonStopped`:
 * `isSet()`, `reason` (the set of reasons), `wait(seconds)` (a Promise) and `await(seconds)` (an
 * interruptible Effect). Waiting runs on the operator's `Clock`, so tests drive it with TestClock.
 */
import type { DaemonStopped, DaemonStoppingReason } from "@kopf/registry";
import type * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";

/** The `stopped` value of a daemon's or timer's context (an `AbortSignal`, by its type too). */
export type StoppedSignal = DaemonStopped;

/** A stop flag. */
export interface Stopper {
  /** Sets a reason at clock time `now` (milliseconds); the first one raises the flag. */
  readonly set: (reason: DaemonStoppingReason, now: number) => void;
  readonly isSet: () => boolean;
  readonly has: (reason: DaemonStoppingReason) => boolean;
  /** Clock time (milliseconds) of the first stop, if stopped. */
  readonly when: () => number | undefined;
  /** Completes with `true` once stopped, or `false` after `seconds` (never without them). */
  readonly await: (seconds?: number) => Effect.Effect<boolean>;
  /** What the handler gets as `stopped`. */
  readonly signal: StoppedSignal;
}

/**
 * A new, unset stop flag; `services` run the Promise-side waits (their Clock above all).
 *
 * @example
 * ```ts
 * const stopper = Stopper.make(yield* Effect.context<never>())
 * stopper.set("resource-deleted", yield* Clock.currentTimeMillis)
 * stopper.signal.aborted // true
 * ```
 */
export const make = (services: Context.Context<never>): Stopper => {
  const reasons = new Set<DaemonStoppingReason>();
  let first: number | undefined;
  const raised = Deferred.makeUnsafe<void>();
  const controller = new AbortController();

  const awaitStop = (seconds?: number): Effect.Effect<boolean> => {
    if (reasons.size > 0) return Effect.succeed(true);
    const wait = Deferred.await(raised);
    if (seconds === undefined) return Effect.as(wait, true);
    return Effect.map(Effect.timeoutOption(wait, `${Math.max(0, seconds) * 1000} millis`), Option.isSome);
  };

  const signal = controller.signal as StoppedSignal;
  Object.defineProperties(signal, {
    reason: { get: () => (reasons.size > 0 ? new Set(reasons) : undefined), configurable: true },
    isSet: { value: () => reasons.size > 0, configurable: true },
    await: { value: awaitStop, configurable: true },
    wait: {
      value: (seconds?: number) => Effect.runPromiseWith(services)(awaitStop(seconds)),
      configurable: true,
    },
  });

  return {
    set: (reason, now) => {
      const fresh = reasons.size === 0;
      reasons.add(reason);
      if (fresh) {
        first = now;
        Deferred.doneUnsafe(raised, Effect.void);
        controller.abort(new Set(reasons));
      }
    },
    isSet: () => reasons.size > 0,
    has: (reason) => reasons.has(reason),
    when: () => first,
    await: awaitStop,
    signal,
  };
};

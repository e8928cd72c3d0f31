/**
 * The pure schedule of timers (docs/behaviour/daemons-timers.md#timers): what a timer does after one invocation, and how long
 * an idling timer still has to wait.
 *
 * Permanently failed timers: Kopf's documentation says such a timer "stops forever", while its
 * code sleeps the interval and starts a fresh round. This port follows the documentation: a
 * final failure (a `PermanentError`, or retries/timeout exhausted) stops the timer for this
 * object until the operator restarts (it is "forever stopped", and no longer holds the
 * finalizer). Raise a `TemporaryError` to keep it scheduled.
 */

/** The timer's options (seconds). */
export interface TimerSchedule {
  readonly interval: number | undefined;
  readonly sharp: boolean;
  readonly idle: number | undefined;
}

/** What to do after an invocation. */
export type Next =
  /** Retry the same round after the delay (temporary failure, backoff). */
  | { readonly _tag: "Retry"; readonly delay: number }
  /** Start a new round after the delay. */
  | { readonly _tag: "Sleep"; readonly delay: number }
  /** Start a new round once the object changed after this run (idle-only timers). */
  | { readonly _tag: "AwaitChange" }
  /** Stop: a one-shot timer that ran, or a permanently failed one. */
  | { readonly _tag: "Stop"; readonly failed: boolean };

/**
 * The next step after one invocation that started `started` and ended `now` (seconds).
 *
 * @example
 * ```ts
 * afterRun({ final: true, failed: false, delay: undefined, started: 0, now: 3 }, { interval: 10, sharp: true, idle: undefined })
 * // Sleep 7 (the fixed grid)
 * ```
 */
export const afterRun = (
  outcome: {
    readonly final: boolean;
    readonly failed: boolean;
    readonly delay: number | undefined;
    readonly started: number;
    readonly now: number;
  },
  schedule: TimerSchedule,
): Next => {
  if (!outcome.final) return { _tag: "Retry", delay: Math.max(0, outcome.delay ?? 0) };
  if (outcome.failed) return { _tag: "Stop", failed: true };
  const { interval, sharp, idle } = schedule;
  if (interval !== undefined && sharp) {
    const elapsed = Math.max(0, outcome.now - outcome.started);
    return { _tag: "Sleep", delay: interval > 0 ? interval - (elapsed % interval) : 0 };
  }
  if (interval !== undefined) return { _tag: "Sleep", delay: interval };
  if (idle !== undefined) return { _tag: "AwaitChange" };
  return { _tag: "Stop", failed: false };
};

/**
 * Seconds an idling timer still has to wait: `idle` since the last essential change.
 *
 * @example
 * ```ts
 * idleLeft({ idle: 10, lastChange: 100, now: 104 }) // 6
 * ```
 */
export const idleLeft = (input: {
  readonly idle: number;
  readonly lastChange: number;
  readonly now: number;
}): number => Math.max(0, input.idle - (input.now - input.lastChange));

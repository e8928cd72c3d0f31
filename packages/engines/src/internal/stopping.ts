/**
 * The pure steps of stopping a daemon or timer (docs/behaviour/daemons-timers.md#stopping-on-deletion and docs/behaviour/daemons-timers.md#operator-exit), decided from its age since
 * the first stop request and its cancellation options.
 *
 * On deletion or filter mismatch the procedure is multi-cycle: each processing cycle calls
 * {@link step} and keeps the object's finalizer while a delay is returned. On operator exit it is
 * single-shot: {@link exitPlan} gives the waits to make in order.
 */

/** A daemon's cancellation options (timers have none: they are polled until they exit). */
export interface Cancellation {
  readonly backoff: number | undefined;
  readonly timeout: number | undefined;
  /** Seconds between checks without a timeout (the handler's, else the settings' default). */
  readonly polling: number;
}

/** What to do in this cycle. */
export type Step =
  | { readonly _tag: "Exited" }
  /** Wait (after signalling) until the backoff is over. */
  | { readonly _tag: "Signal"; readonly delay: number }
  /** Cancel the runner and check again after the rest of the timeout. */
  | { readonly _tag: "Cancel"; readonly delay: number }
  /** Give up: leave the runner orphaned, release the object. */
  | { readonly _tag: "Abandon" }
  /** No timeout: check again after the polling interval. */
  | { readonly _tag: "Poll"; readonly delay: number };

/**
 * One cycle of the stopping procedure for a runner stopped `age` seconds ago.
 *
 * @example
 * ```ts
 * step({ exited: false, age: 1, options: { backoff: 5, timeout: 10, polling: 60 } }) // Signal, delay 4
 * ```
 */
export const step = (input: {
  readonly exited: boolean;
  readonly age: number;
  readonly options: Cancellation;
}): Step => {
  const { exited, age, options } = input;
  if (exited) return { _tag: "Exited" };
  const backoff = options.backoff ?? 0;
  if (options.backoff !== undefined && age < backoff) return { _tag: "Signal", delay: backoff - age };
  if (options.timeout !== undefined) {
    if (age < backoff + options.timeout) return { _tag: "Cancel", delay: backoff + options.timeout - age };
    return { _tag: "Abandon" };
  }
  return { _tag: "Poll", delay: options.polling };
};

/** One stage of the single-shot exit procedure. */
export type ExitStage =
  | { readonly _tag: "Signal"; readonly wait: number }
  | { readonly _tag: "Cancel"; readonly wait: number }
  | { readonly _tag: "Abandon" };

/**
 * The stages of stopping a runner on operator exit, after the instant-exit wait, each applied
 * only if the runner is still running: signal and wait up to the backoff, cancel and wait up to
 * the timeout, then abandon (no waiting without a timeout).
 *
 * @example
 * ```ts
 * exitPlan({ backoff: undefined, timeout: 3, polling: 60 }) // [Cancel 3s, Abandon]
 * ```
 */
export const exitPlan = (options: Cancellation): ReadonlyArray<ExitStage> => [
  ...(options.backoff === undefined ? [] : [{ _tag: "Signal", wait: options.backoff } as const]),
  ...(options.timeout === undefined ? [] : [{ _tag: "Cancel", wait: options.timeout } as const]),
  { _tag: "Abandon" } as const,
];

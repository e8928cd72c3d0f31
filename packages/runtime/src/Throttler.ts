/**
 * Per-object throttling of framework errors (Kopf's `throttled`, docs/behaviour/processing.md#throttling): when the
 * processing of an event fails unexpectedly (API errors while patching, a storage that cannot
 * be decoded — not handler errors, which the execution engine handles), the object is left
 * alone for the next delay of `settings.queueing.errorDelays` (the last one is reused when they
 * run out; no delays: no throttling). Events arriving meanwhile are skipped until the time is up;
 * the first success resets the sequence. Cancellation (interruption) is never throttled.
 *
 * Unlike Kopf, a failure can ask to be retried ({@link throttled}'s `retryIf`): once its delay
 * has passed undisturbed, the same event is processed again instead of waiting for a new one.
 * The runtime asks this for a patch write that failed, so that handlers whose results or marks
 * were not stored run again even if the object never changes.
 *
 * The decisions are pure ({@link onFailure}, {@link onSuccess}); {@link throttled} performs them
 * around an effect, sleeping interruptibly by the object's {@link Pressure} flag.
 */
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type * as CycleSlots from "./internal/cycleSlots.ts";
import * as Metrics from "./Metrics.ts";
import * as Pressure from "./Pressure.ts";

/** The throttling state of one object. */
export interface Throttler {
  /** Until when (Clock milliseconds) the object is left alone; `undefined`: not throttled. */
  readonly activeUntil: number | undefined;
  /** How many delays of the sequence have been used since the last success. */
  readonly used: number;
  /** The last delay used (seconds), reused when the sequence runs out. */
  readonly lastDelay: number | undefined;
}

/** Not throttled. */
export const initial: Throttler = { activeUntil: undefined, used: 0, lastDelay: undefined };

/**
 * Whether the throttler has nothing to do for a run: not throttled, and a success would change
 * nothing (no throttling to end, no failure to forget). A cycle of such an object may run
 * without it.
 *
 * @example
 * isIdle(initial) // true
 * isIdle(onFailure(initial, [1], 0).state) // false
 */
export const isIdle = (state: Throttler): boolean =>
  state.activeUntil === undefined && state.lastDelay === undefined && state.used === 0;

/**
 * The state after a failure at `now` (ms): the next delay of the sequence (or the last one
 * again); `delay` is `undefined` when there are no delays at all (no throttling).
 *
 * @example
 * onFailure(initial, [123, 234], 0) // { state: { activeUntil: 123000, used: 1, lastDelay: 123 }, delay: 123 }
 */
export const onFailure = (
  state: Throttler,
  delays: ReadonlyArray<number>,
  now: number,
): { readonly state: Throttler; readonly delay: number | undefined } => {
  const delay = state.used < delays.length ? delays[state.used] : state.lastDelay;
  if (delay === undefined) return { state, delay: undefined };
  return { state: { activeUntil: now + delay * 1000, used: state.used + 1, lastDelay: delay }, delay };
};

/**
 * The state after a successful run; `wasThrottled` says whether to log that throttling is over.
 *
 * @example
 * onSuccess({ activeUntil: undefined, used: 2, lastDelay: 234 }) // { state: initial, wasThrottled: true }
 */
export const onSuccess = (
  state: Throttler,
): { readonly state: Throttler; readonly wasThrottled: boolean } => ({
  state: initial,
  wasThrottled: state.lastDelay !== undefined,
});

/** Where the state of one object lives between events. */
export interface Cell {
  get(): Throttler;
  set(state: Throttler): void;
}

const sleepOut = (cell: Cell, pressure: Pressure.Pressure | undefined, aside: CycleSlots.Aside | undefined) =>
  Effect.gen(function* () {
    const until = cell.get().activeUntil;
    if (until === undefined) return;
    const now = yield* Clock.currentTimeMillis;
    const sleep = Pressure.sleep(pressure, (until - now) / 1000);
    const slept = yield* aside === undefined ? sleep : aside(sleep);
    if (slept.fully) {
      cell.set({ ...cell.get(), activeUntil: undefined });
      yield* Metrics.throttling(false);
    }
  });

/**
 * Runs `body` unless the object is throttled: first sleeps what is left of an earlier throttling
 * (interruptibly); skips the body (`None`) if that sleep was cut short; on an unexpected failure
 * logs "Throttling for {d} seconds due to an unexpected error: …" and sleeps the new delay.
 *
 * @example
 * ```ts
 * const result = yield* Throttler.throttled({ cell, delays: settings.queueing.errorDelays, pressure }, processEvent)
 * ```
 */
export const throttled = <A, E, R>(
  options: ThrottledOptions<E>,
  body: Effect.Effect<A, E, R>,
): Effect.Effect<Option.Option<A>, never, R> =>
  Effect.suspend(() => {
    const { cell, pressure, aside } = options;
    // Not throttled (the usual case): the body at once, with no sleep to sleep out.
    if (cell.get().activeUntil === undefined) return attempt(options, body);
    return Effect.flatMap(sleepOut(cell, pressure, aside), () =>
      cell.get().activeUntil !== undefined ? Effect.succeedNone : attempt(options, body),
    );
  });

/** What {@link throttled} throttles by. */
export interface ThrottledOptions<E> {
  readonly cell: Cell;
  readonly delays: ReadonlyArray<number>;
  readonly pressure?: Pressure.Pressure | undefined;
  /** Runs the sleeps (e.g. with the cycle's processing slot given back meanwhile). */
  readonly aside?: CycleSlots.Aside | undefined;
  /** Whether a failure is worth processing the same event again once its delay has passed. */
  readonly retryIf?: ((error: E) => boolean) | undefined;
}

/** Runs the body once and steps the throttler by how it ended. */
const attempt = <A, E, R>(
  options: ThrottledOptions<E>,
  body: Effect.Effect<A, E, R>,
): Effect.Effect<Option.Option<A>, never, R> =>
  Effect.matchCauseEffect(body, {
    onSuccess: (value) => {
      const next = onSuccess(options.cell.get());
      options.cell.set(next.state);
      return next.wasThrottled
        ? Effect.as(
            Effect.logInfo("Throttling is over. Switching back to normal operations."),
            Option.some(value),
          )
        : Effect.succeedSome(value);
    },
    onFailure: (cause) => failed(options, body, cause),
  });

/** After an unexpected failure: logs it, sleeps the next delay, and retries if asked to. */
const failed = <A, E, R>(
  options: ThrottledOptions<E>,
  body: Effect.Effect<A, E, R>,
  cause: Cause.Cause<E>,
): Effect.Effect<Option.Option<A>, never, R> =>
  Effect.gen(function* () {
    const { cell, delays, pressure, aside, retryIf } = options;
    if (Cause.hasInterrupts(cause)) return yield* Effect.failCause(cause as Cause.Cause<never>);
    const next = onFailure(cell.get(), delays, yield* Clock.currentTimeMillis);
    cell.set(next.state);
    if (next.delay !== undefined) yield* Metrics.throttling(true);
    if (next.delay === undefined) {
      yield* Effect.logError("An unexpected error occurred; no throttling is configured.", cause);
      return Option.none();
    }
    yield* Effect.logError(
      `Throttling for ${next.delay} seconds due to an unexpected error: ${describe(cause)}`,
      cause,
    );
    yield* sleepOut(cell, pressure, aside);
    const retry = retryIf !== undefined && Option.exists(Cause.findErrorOption(cause), retryIf);
    if (retry && cell.get().activeUntil === undefined) {
      yield* Effect.logDebug("Retrying the failed processing now that its throttling is over.");
      return yield* throttled(options, body);
    }
    return Option.none();
  });

const describe = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause);
  if (error instanceof Error) return `${error.name}(${JSON.stringify(error.message)})`;
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const message = (error as { message?: unknown }).message;
    return `${String((error as { _tag: unknown })._tag)}(${JSON.stringify(String(message ?? ""))})`;
  }
  return String(error);
};

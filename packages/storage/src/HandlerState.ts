/**
 * The state of one handler within a processing cycle (docs/behaviour/progress.md#handler-state): loaded from its progress
 * record or started from scratch, advanced by outcomes, and turned back into a record. Every
 * function is pure; "now" (epoch microseconds) is an argument, read from `Clock` by the runtime.
 */
import { IsoTime, Json } from "@kopf/structs";
import * as Result from "effect/Result";
import type { Outcome } from "./Outcome.ts";
import type { ProgressRecord } from "./ProgressRecord.ts";
import { StorageDecodeError } from "./StorageError.ts";

/**
 * One handler's state. Times are epoch microseconds. `active` states take part in the current
 * cycle (`done`, `delays`); passive ones were only loaded (for counts, extras and purging).
 */
export interface HandlerState {
  readonly active: boolean;
  readonly started: IsoTime.Micros;
  readonly stopped: IsoTime.Micros | null;
  readonly delayed: IsoTime.Micros | null;
  readonly purpose: string | null;
  readonly retries: number;
  readonly success: boolean;
  readonly failure: boolean;
  readonly message: string | null;
  readonly subrefs: ReadonlyArray<string>;
  /** The record as it was loaded (raw), to store only changed records and keep exact bytes. */
  readonly origin: ProgressRecord | null;
}

const MICROS_PER_SECOND = 1_000_000;

/** Python's string order: by code point (JS's default sort compares UTF-16 units). */
const byCodePoint = (a: string, b: string): number => {
  const left = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const right = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
};
const sorted = (ids: Iterable<string>): Array<string> => [...ids].sort(byCodePoint);

/**
 * A new, active state for a handler that has never run: started now.
 *
 * @example
 * ```ts
 * HandlerState.fromScratch(now, "create")
 * ```
 */
export const fromScratch = (now: IsoTime.Micros, purpose: string | null = null): HandlerState => ({
  active: true,
  started: now,
  stopped: null,
  delayed: null,
  purpose,
  retries: 0,
  success: false,
  failure: false,
  message: null,
  subrefs: [],
  origin: null,
});

const parseTime = (
  record: ProgressRecord,
  field: "started" | "stopped" | "delayed",
  key: string,
): Result.Result<number | null, StorageDecodeError> => {
  const text = record[field];
  if (text === undefined || text === null) return Result.succeed(null);
  return Result.mapError(
    IsoTime.parse(text),
    (problem) =>
      new StorageDecodeError({
        reason: "InvalidField",
        key,
        message: `The progress record in ${key} has an invalid ${field}: ${problem.message}`,
      }),
  );
};

/**
 * A passive state from a stored record (as Kopf's `HandlerState.from_storage`): a missing
 * `started` means now; missing counters and flags mean 0/false; an empty purpose means none.
 *
 * @example
 * ```ts
 * HandlerState.fromStorage({ started: "2020-12-31T23:59:59.123456+00:00", retries: 2 }, now)
 * ```
 */
export const fromStorage = (
  record: ProgressRecord,
  now: IsoTime.Micros,
  key = "progress record",
): Result.Result<HandlerState, StorageDecodeError> =>
  Result.gen(function* () {
    const started = yield* parseTime(record, "started", key);
    const stopped = yield* parseTime(record, "stopped", key);
    const delayed = yield* parseTime(record, "delayed", key);
    return {
      active: false,
      started: started ?? now,
      stopped,
      delayed,
      purpose: record.purpose ? record.purpose : null,
      retries: record.retries ?? 0,
      success: record.success ?? false,
      failure: record.failure ?? false,
      message: record.message ?? null,
      subrefs: record.subrefs ?? [],
      origin: record,
    };
  });

/** Format a time, reusing the loaded text when it denotes the same instant (exact bytes). */
const formatTime = (state: HandlerState, field: "started" | "stopped" | "delayed"): string | null => {
  const value = state[field];
  if (value === null) return null;
  const original = state.origin?.[field];
  if (typeof original === "string") {
    const parsed = IsoTime.parse(original);
    if (Result.isSuccess(parsed) && parsed.success === value) return original;
  }
  return IsoTime.format(value);
};

/**
 * The full record to store (every field, nulls included; subrefs sorted, or null if none).
 *
 * @example
 * ```ts
 * HandlerState.forStorage(HandlerState.fromScratch(now, "create"))
 * // { started: "…", stopped: null, delayed: null, purpose: "create", retries: 0, … }
 * ```
 */
export const forStorage = (state: HandlerState): ProgressRecord => ({
  started: formatTime(state, "started"),
  stopped: formatTime(state, "stopped"),
  delayed: formatTime(state, "delayed"),
  purpose: state.purpose,
  retries: state.retries,
  success: state.success,
  failure: state.failure,
  message: state.message,
  subrefs: state.subrefs.length === 0 ? null : sorted(state.subrefs),
});

const withoutNulls = (record: ProgressRecord): ProgressRecord =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null && value !== undefined));

/**
 * The record as Kubernetes would keep it (null fields dropped), for comparing with the origin.
 *
 * @example
 * ```ts
 * HandlerState.asInStorage(state) // { started: "…", retries: 0, success: false, failure: false }
 * ```
 */
export const asInStorage = (state: HandlerState): ProgressRecord => withoutNulls(forStorage(state));

/**
 * Whether the state differs from the record it was loaded from (new states always do). Null
 * fields of the loaded record are ignored, so verbose records are not rewritten needlessly
 * (Kopf compares them as they are and rewrites them on every cycle).
 */
export const isChanged = (state: HandlerState): boolean =>
  state.origin === null || !Json.deepEqual(asInStorage(state), withoutNulls(state.origin));

/**
 * Finished: succeeded or failed permanently.
 *
 * @example
 * ```ts
 * HandlerState.isFinished(state) // true after a final outcome
 * ```
 */
export const isFinished = (state: HandlerState): boolean => state.success || state.failure;

/**
 * Sleeping: not finished and delayed until after `now`.
 *
 * @example
 * ```ts
 * HandlerState.isSleeping(state, now) // true while a retry waits
 * ```
 */
export const isSleeping = (state: HandlerState, now: IsoTime.Micros): boolean =>
  !isFinished(state) && state.delayed !== null && state.delayed > now;

/**
 * Awakened: neither finished nor sleeping, so it may run now.
 *
 * @example
 * ```ts
 * const runnable = [...state.handlers.values()].filter((h) => HandlerState.isAwakened(h, now))
 * ```
 */
export const isAwakened = (state: HandlerState, now: IsoTime.Micros): boolean =>
  !isFinished(state) && !isSleeping(state, now);

/**
 * Time since the first attempt, in microseconds.
 *
 * @example
 * ```ts
 * HandlerState.runtime(state, now) / 1_000_000 // seconds, for the handler's `runtime`
 * ```
 */
export const runtime = (state: HandlerState, now: IsoTime.Micros): number => now - state.started;

/**
 * The same state, taking part in the current cycle.
 *
 * @example
 * ```ts
 * HandlerState.asActive(loaded).active // true
 * ```
 */
export const asActive = (state: HandlerState): HandlerState => ({ ...state, active: true });

/**
 * The same state, run for another purpose.
 *
 * @example
 * ```ts
 * HandlerState.withPurpose(state, "delete").purpose // "delete"
 * ```
 */
export const withPurpose = (state: HandlerState, purpose: string | null): HandlerState => ({
  ...state,
  purpose,
});

/**
 * Apply one attempt's outcome (docs/behaviour/progress.md#handler-state): stopped is set once when final; delayed is now plus
 * the outcome's delay (or cleared); success/failure by the error; retries + 1; the message of
 * the error; subrefs merged and sorted.
 *
 * @example
 * ```ts
 * HandlerState.withOutcome(state, { final: false, delay: 1, error: new Error("wait") }, now)
 * ```
 */
export const withOutcome = (state: HandlerState, outcome: Outcome, now: IsoTime.Micros): HandlerState => {
  const failed = outcome.error !== undefined && outcome.error !== null;
  const delay = outcome.delay ?? null;
  return {
    ...state,
    stopped: state.stopped ?? (outcome.final ? now : null),
    delayed: delay === null ? null : now + Math.round(delay * MICROS_PER_SECOND),
    success: outcome.final && !failed,
    failure: outcome.final && failed,
    retries: state.retries + 1,
    message: failed ? (outcome.error?.message ?? "") : null,
    subrefs: sorted(new Set([...state.subrefs, ...(outcome.subrefs ?? [])])),
  };
};

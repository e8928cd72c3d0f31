/**
 * What one attempt of one handler amounts to (docs/behaviour/processing.md#errors-and-retries): the strict limit checks made before
 * invoking it, and the pure judgement of how it ended — success, a temporary or permanent
 * failure, or an arbitrary failure treated by the handler's errors mode with the look-ahead
 * limit checks — as the storage `Outcome` plus the log line Kopf writes for it.
 *
 * Every function here is pure and total: times and counters come in as arguments.
 */
import {
  type ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  TemporaryError,
} from "@kopf/registry";
import type { Outcome as Outcomes } from "@kopf/storage";
import * as Data from "effect/Data";
import { describeError, formatSeconds, formatTimedelta, messageOf } from "./internal/texts.ts";

/**
 * The internal "retry the parent" signal: a parent's sub-handlers are not all done yet, so the
 * parent is retried after the shortest delay of its children (Kopf's `HandlerChildrenRetry`).
 * An explicit `execute()` inside a handler fails (or rejects) with it; let it propagate.
 *
 * @example
 * new HandlerChildrenRetry({ delay: 0, message: "Sub-handlers of 'create_fn' are not finished yet." })
 */
export class HandlerChildrenRetry extends Data.TaggedError("HandlerChildrenRetry")<{
  readonly delay: number | null;
  readonly message: string;
}> {}

/**
 * Kopf keeps `str(HandlerChildrenRetry(delay=…))` as the parent's progress message, which is
 * Python's rendering of a missing message. Kept byte-identical for objects handed over between
 * both operators.
 */
export const CHILDREN_RETRY_MESSAGE = "None";

/** The log line Kopf writes for an attempt; `traceback` lines carry the failure (`logger.exception`). */
export interface LogLine {
  readonly level: "debug" | "info" | "warning" | "error";
  readonly message: string;
  readonly traceback: boolean;
}

/** One attempt of one handler, as far as its outcome depends on it. */
export interface Attempt {
  /** The handler as named in logs: `Handler 'create_fn'`. */
  readonly title: string;
  /** Attempts made before this one. */
  readonly retries: number;
  /** Microseconds since the first attempt. */
  readonly runtime: number;
  /** The handler's `timeout` in seconds, if any. */
  readonly timeout: number | undefined;
  /** The handler's `retries` limit, if any. */
  readonly retryLimit: number | undefined;
  /** Seconds before retrying after an arbitrary error (the handler's or the settings' default). */
  readonly backoff: number;
  /** The errors mode in effect for arbitrary errors. */
  readonly errors: ErrorsMode;
}

/** The outcome to store and the line to log. */
export interface Verdict {
  readonly outcome: Outcomes.Outcome;
  readonly log: LogLine;
}

const line = (level: LogLine["level"], message: string, traceback = false): LogLine => ({
  level,
  message,
  traceback,
});

/** The failure as the storage outcome keeps it: anything with a string `message`. */
const asOutcomeError = (error: unknown): { readonly message: string } =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string })
    : { message: messageOf(error) };

/**
 * The strict limit checks before an attempt: a handler whose runtime reached its timeout, or
 * whose attempts reached its retries limit, fails for good without being invoked.
 *
 * @example
 * precheck({ ...attempt, retries: 3, retryLimit: 3 }) // HandlerRetriesError("Handler 'fn' has exceeded 3 retries.")
 */
export const precheck = (attempt: Attempt): HandlerTimeoutError | HandlerRetriesError | undefined => {
  if (attempt.timeout !== undefined && attempt.runtime / 1_000_000 >= attempt.timeout) {
    return new HandlerTimeoutError(
      `${attempt.title} has timed out after ${formatTimedelta(attempt.runtime)}.`,
    );
  }
  if (attempt.retryLimit !== undefined && attempt.retries >= attempt.retryLimit) {
    return new HandlerRetriesError(`${attempt.title} has exceeded ${attempt.retries} retries.`);
  }
  return undefined;
};

/**
 * A successful attempt: final, with the handler's result.
 *
 * @example
 * succeeded(attempt, { ok: true }).log.message // "Handler 'fn' succeeded."
 */
export const succeeded = (
  attempt: Attempt,
  result: unknown,
  subrefs: ReadonlyArray<string> = [],
): Verdict => ({
  outcome: { final: true, result, subrefs },
  log: line("info", `${attempt.title} succeeded.`),
});

const lookahead = (attempt: Attempt, delay: number) => ({
  timeout: attempt.timeout !== undefined && attempt.runtime / 1_000_000 + delay >= attempt.timeout,
  retries: attempt.retryLimit !== undefined && attempt.retries + 1 >= attempt.retryLimit,
});

/**
 * A failed attempt, by what it failed with (docs/behaviour/processing.md#errors-and-retries, row by row).
 *
 * @example
 * failed(attempt, new TemporaryError("not yet", { delay: 10 })).outcome // { final: false, delay: 10, error }
 * failed({ ...attempt, errors: "ignored" }, new Error("boom")).outcome // { final: true } (success-like)
 */
export const failed = (attempt: Attempt, error: unknown, subrefs: ReadonlyArray<string> = []): Verdict => {
  const { title } = attempt;
  const text = describeError(error);

  if (error instanceof HandlerChildrenRetry) {
    return {
      outcome: { final: false, delay: error.delay, error: { message: CHILDREN_RETRY_MESSAGE }, subrefs },
      log: line("debug", `${title} has unfinished sub-handlers. Will retry soon.`),
    };
  }

  if (error instanceof TemporaryError) {
    const ahead = lookahead(attempt, error.delay ?? 0);
    if (ahead.timeout) {
      const message = `${title} failed temporarily but will time out after ${formatSeconds(attempt.timeout ?? 0)} seconds: ${text}`;
      return {
        outcome: { final: true, error: new HandlerTimeoutError(message), subrefs },
        log: line("error", message),
      };
    }
    if (ahead.retries) {
      const message = `${title} failed temporarily but will exceed ${formatSeconds(attempt.retryLimit ?? 0)} retries: ${text}`;
      return {
        outcome: { final: true, error: new HandlerRetriesError(message), subrefs },
        log: line("error", message),
      };
    }
    return {
      outcome: { final: false, delay: error.delay, error, subrefs },
      log: line("error", `${title} failed temporarily: ${text}`),
    };
  }

  if (error instanceof HandlerTimeoutError || error instanceof HandlerRetriesError) {
    return { outcome: { final: true, error, subrefs }, log: line("error", text) };
  }

  if (error instanceof PermanentError) {
    return {
      outcome: { final: true, error, subrefs },
      log: line("error", `${title} failed permanently: ${text}`),
    };
  }

  return arbitrary(attempt, error, text, subrefs);
};

const arbitrary = (
  attempt: Attempt,
  error: unknown,
  text: string,
  subrefs: ReadonlyArray<string>,
): Verdict => {
  const { title, backoff } = attempt;
  const ahead = lookahead(attempt, backoff);
  switch (attempt.errors) {
    case "ignored":
      return {
        outcome: { final: true, subrefs },
        log: line("error", `${title} failed with an exception and will ignore it: ${text}`, true),
      };
    case "temporary": {
      if (ahead.timeout) {
        const message = `${title} failed with an exception and will stop now (it would time out in ${formatSeconds(attempt.timeout ?? 0)} seconds on the next attempt): ${text}`;
        return {
          outcome: { final: true, error: new HandlerTimeoutError(message), subrefs },
          log: line("error", message, true),
        };
      }
      if (ahead.retries) {
        const message = `${title} failed with an exception and will stop now (it would exceed ${formatSeconds(attempt.retryLimit ?? 0)} retries on the next attempt): ${text}`;
        return {
          outcome: { final: true, error: new HandlerRetriesError(message), subrefs },
          log: line("error", message, true),
        };
      }
      return {
        outcome: { final: false, delay: backoff, error: asOutcomeError(error), subrefs },
        log: line(
          "error",
          `${title} failed with an exception and will try again in ${formatSeconds(backoff)} seconds: ${text}`,
          true,
        ),
      };
    }
    case "permanent":
      return {
        outcome: { final: true, error: asOutcomeError(error), subrefs },
        log: line("error", `${title} failed with an exception and will stop now: ${text}`, true),
      };
  }
};

/** How an attempt ended, for metrics, events and traces (see {@link endOf}). */
export type End =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly kind: "temporary" | "permanent" | "timeout" | "retries" | "ignored" }
  /** A parent whose sub-handlers are not finished yet: neither a success nor a failure. */
  | { readonly _tag: "Pending" };

/**
 * How an attempt ended, from its judged outcome and what the call raised (`undefined` when it
 * returned): a failure's kind says whether it will be retried (`temporary`), failed for good by
 * itself (`permanent`) or by its limits (`timeout`, `retries`), or was `ignored`.
 *
 * @example
 * endOf({ final: true }, undefined) // { _tag: "Succeeded" }
 * endOf({ final: false, delay: 60 }, { error: new Error("boom") }) // { _tag: "Failed", kind: "temporary" }
 * endOf({ final: true, error: new HandlerRetriesError("…") }, { error: new Error("boom") }) // { _tag: "Failed", kind: "retries" }
 */
export const endOf = (outcome: Outcomes.Outcome, raised: { readonly error: unknown } | undefined): End => {
  if (raised === undefined) return { _tag: "Succeeded" };
  if (raised.error instanceof HandlerChildrenRetry) return { _tag: "Pending" };
  if (!outcome.final) return { _tag: "Failed", kind: "temporary" };
  const error = outcome.error;
  if (error === undefined || error === null) return { _tag: "Failed", kind: "ignored" };
  if (error instanceof HandlerTimeoutError) return { _tag: "Failed", kind: "timeout" };
  if (error instanceof HandlerRetriesError) return { _tag: "Failed", kind: "retries" };
  return { _tag: "Failed", kind: "permanent" };
};

/**
 * The Warning event of an attempt's end, if it deserves one: a handler that failed for good
 * (`HandlerFailed`), ran out of retries (`HandlerRetriesExhausted`) or of time
 * (`HandlerTimedOut`); the message is the failure's log line.
 *
 * @example
 * failureEvent({ _tag: "Failed", kind: "permanent" }, "Handler 'f' failed permanently: boom")
 * // { type: "Warning", reason: "HandlerFailed", message: "Handler 'f' failed permanently: boom" }
 * failureEvent({ _tag: "Failed", kind: "temporary" }, "…") // undefined
 */
export const failureEvent = (
  end: End,
  message: string,
): { readonly type: "Warning"; readonly reason: string; readonly message: string } | undefined => {
  if (end._tag !== "Failed") return undefined;
  switch (end.kind) {
    case "permanent":
      return { type: "Warning", reason: "HandlerFailed", message };
    case "retries":
      return { type: "Warning", reason: "HandlerRetriesExhausted", message };
    case "timeout":
      return { type: "Warning", reason: "HandlerTimedOut", message };
    case "temporary":
    case "ignored":
      return undefined;
  }
};

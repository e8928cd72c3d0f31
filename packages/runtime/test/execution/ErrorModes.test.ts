// Covers docs/behaviour/processing.md#errors-and-retries as a table: the strict limit checks before an attempt, every outcome row
// (success, TemporaryError incl. null/default delay and both look-aheads, HandlerTimeoutError/
// HandlerRetriesError, PermanentError, arbitrary errors under IGNORED/TEMPORARY/PERMANENT with
// both look-aheads, unfinished sub-handlers), Kopf's log lines, and the look-ahead invariants.
import { describe, expect, it } from "@effect/vitest";
import { HandlerRetriesError, HandlerTimeoutError, PermanentError, TemporaryError } from "@kopf/registry";
import fc from "fast-check";
import * as ErrorModes from "../../src/execution/ErrorModes.ts";

const S = 1_000_000;
const base: ErrorModes.Attempt = {
  title: "Handler 'fn'",
  retries: 0,
  runtime: 0,
  timeout: undefined,
  retryLimit: undefined,
  backoff: 60,
  errors: "temporary",
};

describe("precheck", () => {
  it.each([
    ["no limits", {}, undefined],
    ["runtime below timeout", { timeout: 60, runtime: 59.9 * S }, undefined],
    [
      "runtime reaching timeout",
      { timeout: 60, runtime: 60 * S },
      "Handler 'fn' has timed out after 0:01:00.",
    ],
    [
      "runtime beyond timeout, fractional",
      { timeout: 60, runtime: 100.25 * S },
      "Handler 'fn' has timed out after 0:01:40.250000.",
    ],
    ["retries below the limit", { retryLimit: 3, retries: 2 }, undefined],
    ["retries reaching the limit", { retryLimit: 3, retries: 3 }, "Handler 'fn' has exceeded 3 retries."],
    ["retries beyond the limit", { retryLimit: 3, retries: 5 }, "Handler 'fn' has exceeded 5 retries."],
    [
      "timeout checked first",
      { timeout: 1, runtime: 2 * S, retryLimit: 1, retries: 1 },
      "Handler 'fn' has timed out after 0:00:02.",
    ],
  ] as const)("%s", (_name, overrides, expected) => {
    const error = ErrorModes.precheck({ ...base, ...overrides });
    expect(error?.message).toBe(expected);
    if (expected?.includes("timed out")) expect(error).toBeInstanceOf(HandlerTimeoutError);
    if (expected?.includes("exceeded")) expect(error).toBeInstanceOf(HandlerRetriesError);
  });
});

interface Row {
  readonly name: string;
  readonly attempt?: Partial<ErrorModes.Attempt>;
  readonly error: unknown;
  readonly final: boolean;
  readonly delay?: number | null;
  /** The error class of the outcome, `null` for none (success-like). */
  readonly outcomeError: Function | null;
  /** The stored message, when the error is kept. */
  readonly message?: string;
  readonly level: ErrorModes.LogLine["level"];
  readonly log: string;
  readonly traceback?: boolean;
}

const rows: ReadonlyArray<Row> = [
  {
    name: "TemporaryError with a delay: retried after it",
    error: new TemporaryError("not yet", { delay: 10 }),
    final: false,
    delay: 10,
    outcomeError: TemporaryError,
    message: "not yet",
    level: "error",
    log: "Handler 'fn' failed temporarily: not yet",
  },
  {
    name: "TemporaryError with the default delay of 60",
    error: new TemporaryError("later"),
    final: false,
    delay: 60,
    outcomeError: TemporaryError,
    level: "error",
    log: "Handler 'fn' failed temporarily: later",
  },
  {
    name: "TemporaryError with delay null: retried at once",
    error: new TemporaryError("now", { delay: null }),
    final: false,
    delay: null,
    outcomeError: TemporaryError,
    level: "error",
    log: "Handler 'fn' failed temporarily: now",
  },
  {
    name: "TemporaryError without a message logs its repr",
    error: new TemporaryError(),
    final: false,
    delay: 60,
    outcomeError: TemporaryError,
    message: "",
    level: "error",
    log: "Handler 'fn' failed temporarily: TemporaryError()",
  },
  {
    name: "TemporaryError whose delay would reach the timeout",
    attempt: { timeout: 30, runtime: 25 * S },
    error: new TemporaryError("slow", { delay: 5 }),
    final: true,
    outcomeError: HandlerTimeoutError,
    message: "Handler 'fn' failed temporarily but will time out after 30 seconds: slow",
    level: "error",
    log: "Handler 'fn' failed temporarily but will time out after 30 seconds: slow",
  },
  {
    name: "TemporaryError delay null counts as 0 in the look-ahead",
    attempt: { timeout: 30, runtime: 29 * S },
    error: new TemporaryError("fast", { delay: null }),
    final: false,
    delay: null,
    outcomeError: TemporaryError,
    level: "error",
    log: "Handler 'fn' failed temporarily: fast",
  },
  {
    name: "TemporaryError on the last allowed attempt",
    attempt: { retryLimit: 3, retries: 2 },
    error: new TemporaryError("again", { delay: 1 }),
    final: true,
    outcomeError: HandlerRetriesError,
    message: "Handler 'fn' failed temporarily but will exceed 3 retries: again",
    level: "error",
    log: "Handler 'fn' failed temporarily but will exceed 3 retries: again",
  },
  {
    name: "HandlerTimeoutError raised: final, logged as it is",
    error: new HandlerTimeoutError("Handler 'fn' has timed out after 0:01:00."),
    final: true,
    outcomeError: HandlerTimeoutError,
    level: "error",
    log: "Handler 'fn' has timed out after 0:01:00.",
  },
  {
    name: "HandlerRetriesError raised: final, logged as it is",
    error: new HandlerRetriesError("Handler 'fn' has exceeded 3 retries."),
    final: true,
    outcomeError: HandlerRetriesError,
    level: "error",
    log: "Handler 'fn' has exceeded 3 retries.",
  },
  {
    name: "PermanentError: final failure",
    error: new PermanentError("bad spec"),
    final: true,
    outcomeError: PermanentError,
    message: "bad spec",
    level: "error",
    log: "Handler 'fn' failed permanently: bad spec",
  },
  {
    name: "PermanentError even in IGNORED mode",
    attempt: { errors: "ignored" },
    error: new PermanentError("bad spec"),
    final: true,
    outcomeError: PermanentError,
    level: "error",
    log: "Handler 'fn' failed permanently: bad spec",
  },
  {
    name: "arbitrary error, IGNORED: final and success-like",
    attempt: { errors: "ignored" },
    error: new Error("boom"),
    final: true,
    outcomeError: null,
    level: "error",
    log: "Handler 'fn' failed with an exception and will ignore it: boom",
    traceback: true,
  },
  {
    name: "arbitrary error, TEMPORARY: retried after the backoff",
    error: new Error("boom"),
    final: false,
    delay: 60,
    outcomeError: Error,
    message: "boom",
    level: "error",
    log: "Handler 'fn' failed with an exception and will try again in 60 seconds: boom",
    traceback: true,
  },
  {
    name: "arbitrary error, TEMPORARY with the handler's backoff",
    attempt: { backoff: 1.5 },
    error: new TypeError("x is undefined"),
    final: false,
    delay: 1.5,
    outcomeError: TypeError,
    level: "error",
    log: "Handler 'fn' failed with an exception and will try again in 1.5 seconds: x is undefined",
    traceback: true,
  },
  {
    name: "arbitrary error, TEMPORARY, the backoff would reach the timeout",
    attempt: { timeout: 100, runtime: 50 * S },
    error: new Error("boom"),
    final: true,
    outcomeError: HandlerTimeoutError,
    message:
      "Handler 'fn' failed with an exception and will stop now (it would time out in 100 seconds on the next attempt): boom",
    level: "error",
    log: "Handler 'fn' failed with an exception and will stop now (it would time out in 100 seconds on the next attempt): boom",
    traceback: true,
  },
  {
    name: "arbitrary error, TEMPORARY, the next attempt would exceed the retries",
    attempt: { retryLimit: 1 },
    error: new Error("boom"),
    final: true,
    outcomeError: HandlerRetriesError,
    level: "error",
    log: "Handler 'fn' failed with an exception and will stop now (it would exceed 1 retries on the next attempt): boom",
    traceback: true,
  },
  {
    name: "arbitrary error, PERMANENT: final failure",
    attempt: { errors: "permanent" },
    error: new Error("boom"),
    final: true,
    outcomeError: Error,
    message: "boom",
    level: "error",
    log: "Handler 'fn' failed with an exception and will stop now: boom",
    traceback: true,
  },
  {
    name: "a thrown non-Error value is kept as its text",
    error: "just a string",
    final: false,
    delay: 60,
    outcomeError: Object,
    message: "just a string",
    level: "error",
    log: "Handler 'fn' failed with an exception and will try again in 60 seconds: just a string",
    traceback: true,
  },
  {
    name: "an Error without a message logs its repr",
    attempt: { errors: "permanent" },
    error: new RangeError(),
    final: true,
    outcomeError: RangeError,
    message: "",
    level: "error",
    log: "Handler 'fn' failed with an exception and will stop now: RangeError()",
    traceback: true,
  },
  {
    name: "unfinished sub-handlers: retried after their delay, Kopf's message kept",
    attempt: { retryLimit: 1, timeout: 1 },
    error: new ErrorModes.HandlerChildrenRetry({ delay: 5, message: "children" }),
    final: false,
    delay: 5,
    outcomeError: Object,
    message: "None",
    level: "debug",
    log: "Handler 'fn' has unfinished sub-handlers. Will retry soon.",
  },
];

describe("failed", () => {
  it.each(rows.map((row) => [row.name, row] as const))("%s", (_name, row) => {
    const verdict = ErrorModes.failed({ ...base, ...row.attempt }, row.error, ["fn/sub"]);
    expect(verdict.outcome.final).toBe(row.final);
    if (!row.final) expect(verdict.outcome.delay).toBe(row.delay);
    if (row.outcomeError === null) expect(verdict.outcome.error ?? null).toBeNull();
    else expect(verdict.outcome.error).toBeInstanceOf(row.outcomeError);
    if (row.message !== undefined) expect(verdict.outcome.error?.message).toBe(row.message);
    expect(verdict.outcome.subrefs).toEqual(["fn/sub"]);
    expect(verdict.log).toEqual({ level: row.level, message: row.log, traceback: row.traceback ?? false });
  });
});

describe("succeeded", () => {
  it("is final with the result, logged at info", () => {
    const verdict = ErrorModes.succeeded(base, { ok: 1 });
    expect(verdict.outcome).toEqual({ final: true, result: { ok: 1 }, subrefs: [] });
    expect(verdict.log).toEqual({ level: "info", message: "Handler 'fn' succeeded.", traceback: false });
  });
});

describe("invariants", () => {
  const attempts = fc.record({
    title: fc.constant("Handler 'fn'"),
    retries: fc.nat(20),
    runtime: fc.nat(1000).map((s) => s * S),
    timeout: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
    retryLimit: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    backoff: fc.integer({ min: 0, max: 600 }),
    errors: fc.constantFrom("ignored" as const, "temporary" as const, "permanent" as const),
  });
  const errors = fc.oneof(
    fc.string().map((m) => new Error(m)),
    fc.string().map((m) => new PermanentError(m)),
    fc
      .tuple(fc.string(), fc.option(fc.nat(600), { nil: null }))
      .map(([m, d]) => new TemporaryError(m, { delay: d })),
  );

  it("a retried attempt stays within the limits on its next try (look-ahead)", () => {
    fc.assert(
      fc.property(attempts, errors, (attempt, error) => {
        const { outcome } = ErrorModes.failed(attempt, error);
        if (outcome.final) return;
        const delay = outcome.delay ?? 0;
        if (attempt.retryLimit !== undefined) expect(attempt.retries + 1).toBeLessThan(attempt.retryLimit);
        if (attempt.timeout !== undefined) expect(attempt.runtime / S + delay).toBeLessThan(attempt.timeout);
        expect(outcome.error).toBeDefined();
      }),
    );
  });

  it("only IGNORED arbitrary errors end final without an error", () => {
    fc.assert(
      fc.property(attempts, errors, (attempt, error) => {
        const { outcome } = ErrorModes.failed(attempt, error);
        const successLike = outcome.final && (outcome.error === undefined || outcome.error === null);
        const ignoredArbitrary =
          attempt.errors === "ignored" &&
          !(error instanceof PermanentError) &&
          !(error instanceof TemporaryError);
        expect(successLike).toBe(ignoredArbitrary);
      }),
    );
  });
});

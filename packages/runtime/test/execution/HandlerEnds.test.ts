// Covers how a handler's attempt ends for metrics and events: the pure classification of ends
// and of the Warning events they deserve (tables), and, through executeHandlerOnce, the
// recorded metrics and the Warning events posted on the object for a permanent failure, an
// exhausted retry budget and a timeout — none for temporary failures and successes, none when
// posting is off, and none extra when the failure's log line is posted already.
import { assert, describe, it } from "@effect/vitest";
import {
  type ChangingHandler,
  HandlerRetriesError,
  HandlerTimeoutError,
  Lifecycles,
  PermanentError,
  TemporaryError,
} from "@kopf/registry";
import { Settings } from "@kopf/settings";
import { HandlerState } from "@kopf/storage";
import { IsoTime } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as Result from "effect/Result";
import * as ErrorModes from "../../src/execution/ErrorModes.ts";
import { executeHandlerOnce } from "../../src/execution/Handling.ts";
import * as Subhandling from "../../src/execution/Subhandling.ts";
import * as Metrics from "../../src/Metrics.ts";
import * as Posting from "../../src/Posting.ts";
import * as F from "./fixtures.ts";

describe("endOf", () => {
  it.each([
    ["a return", { final: true }, undefined, { _tag: "Succeeded" }],
    [
      "a temporary error",
      { final: false, delay: 1 },
      { error: new TemporaryError("t", { delay: 1 }) },
      { _tag: "Failed", kind: "temporary" },
    ],
    [
      "a permanent error",
      { final: true, error: new PermanentError("p") },
      { error: new PermanentError("p") },
      { _tag: "Failed", kind: "permanent" },
    ],
    [
      "an exhausted budget",
      { final: true, error: new HandlerRetriesError("r") },
      { error: new Error("x") },
      { _tag: "Failed", kind: "retries" },
    ],
    [
      "a timeout",
      { final: true, error: new HandlerTimeoutError("t") },
      { error: new Error("x") },
      { _tag: "Failed", kind: "timeout" },
    ],
    ["an ignored error", { final: true }, { error: new Error("x") }, { _tag: "Failed", kind: "ignored" }],
    [
      "unfinished sub-handlers",
      { final: false, delay: 0 },
      { error: new ErrorModes.HandlerChildrenRetry({ delay: 0, message: "" }) },
      { _tag: "Pending" },
    ],
  ] as const)("%s", (_, outcome, raised, end) => {
    assert.deepStrictEqual(ErrorModes.endOf(outcome, raised), end);
  });
});

describe("failureEvent", () => {
  it.each([
    [{ _tag: "Succeeded" }, undefined],
    [{ _tag: "Pending" }, undefined],
    [{ _tag: "Failed", kind: "temporary" }, undefined],
    [{ _tag: "Failed", kind: "ignored" }, undefined],
    [{ _tag: "Failed", kind: "permanent" }, "HandlerFailed"],
    [{ _tag: "Failed", kind: "retries" }, "HandlerRetriesExhausted"],
    [{ _tag: "Failed", kind: "timeout" }, "HandlerTimedOut"],
  ] as const)("%j ⇒ %s", (end, reason) => {
    const event = ErrorModes.failureEvent(end, "the line");
    assert.deepStrictEqual(
      event,
      reason === undefined ? undefined : { type: "Warning", reason, message: "the line" },
    );
  });
});

/** Runs one attempt of `fn` with `retries` done before, collecting posted events. */
const attempt = (
  fn: () => unknown,
  options: {
    readonly retries?: number;
    readonly limit?: number;
    readonly settings?: Settings.Overrides;
  } = {},
) =>
  Effect.gen(function* () {
    const [handler] = F.changingHandlers((r) =>
      r.on.create(
        F.SPEC,
        {
          id: "fn",
          errors: "temporary",
          backoff: 1,
          ...(options.limit === undefined ? {} : { retries: options.limit }),
        },
        fn,
      ),
    ) as ReadonlyArray<ChangingHandler>;
    const posted: Array<{
      readonly reason: string;
      readonly type: string;
      readonly message?: string | undefined;
    }> = [];
    const settings = Result.getOrThrow(Settings.make(options.settings ?? {}));
    const events = Posting.events({ enqueue: (_, spec) => void posted.push(spec) }, () => settings);
    const now = yield* IsoTime.now;
    const registry: Metric.MetricRegistry = new Map();
    const outcome = yield* executeHandlerOnce({
      handler: handler!,
      cause: F.changing({ logger: F.recorder().logger }),
      state: { ...HandlerState.fromScratch(now, "create"), retries: options.retries ?? 0 },
      settings,
      lifecycle: Lifecycles.asap,
      extraContext: Subhandling.context(),
    }).pipe(
      Effect.provideService(Posting.CurrentEvents, events),
      Effect.provideService(Metric.MetricRegistry, registry),
    );
    const value = (
      metric: Metric.Metric<number, { readonly count: number }>,
      attributes: Record<string, string>,
    ) =>
      Metric.value(
        Metric.withAttributes(metric, { resource: "kopfexamples.v1.kopf.dev", handler: "fn", ...attributes }),
      ).pipe(
        Effect.map((state) => state.count),
        Effect.provideService(Metric.MetricRegistry, registry),
      );
    return {
      outcome,
      posted,
      invocations: yield* value(Metrics.handlerInvocations, { reason: "create" }),
      successes: yield* value(Metrics.handlerSuccesses, {}),
      retries: yield* value(Metrics.handlerRetries, {}),
      failures: (kind: string) => value(Metrics.handlerFailures, { kind }),
      durations: yield* value(Metrics.handlerDuration, {}),
    };
  });

describe("a handler's attempt", () => {
  it.effect("that succeeds is counted, timed, and posts nothing", () =>
    Effect.gen(function* () {
      const result = yield* attempt(() => "ok");
      assert.deepStrictEqual(
        [result.invocations, result.successes, result.retries, result.durations],
        [1, 1, 0, 1],
      );
      assert.deepStrictEqual(result.posted, []);
    }),
  );

  it.effect("that fails temporarily on a retry is a retry and a temporary failure, and posts nothing", () =>
    Effect.gen(function* () {
      const result = yield* attempt(
        () => {
          throw new TemporaryError("later", { delay: 5 });
        },
        { retries: 2 },
      );
      assert.deepStrictEqual([result.invocations, result.successes, result.retries], [1, 0, 1]);
      assert.strictEqual(yield* result.failures("temporary"), 1);
      assert.deepStrictEqual(result.posted, []);
    }),
  );

  it.effect("that fails permanently posts a Warning event on the object", () =>
    Effect.gen(function* () {
      const result = yield* attempt(() => {
        throw new PermanentError("broken");
      });
      assert.strictEqual(yield* result.failures("permanent"), 1);
      assert.deepStrictEqual(result.posted, [
        { type: "Warning", reason: "HandlerFailed", message: "Handler 'fn' failed permanently: broken" },
      ]);
    }),
  );

  it.effect("that exhausts its retries posts a Warning event on the object", () =>
    Effect.gen(function* () {
      const result = yield* attempt(
        () => {
          throw new Error("boom");
        },
        { retries: 2, limit: 3 },
      );
      assert.strictEqual(yield* result.failures("retries"), 1);
      assert.strictEqual(result.posted.length, 1);
      assert.strictEqual(result.posted[0]?.reason, "HandlerRetriesExhausted");
      assert.strictEqual(result.posted[0]?.type, "Warning");
      assert.include(result.posted[0]?.message ?? "", "would exceed 3 retries");
    }),
  );

  it.effect("whose retries ran out before it is called posts the Warning without invoking it", () =>
    Effect.gen(function* () {
      let called = 0;
      const result = yield* attempt(
        () => {
          called += 1;
        },
        { retries: 3, limit: 3 },
      );
      assert.strictEqual(called, 0);
      assert.strictEqual(result.invocations, 0);
      assert.strictEqual(yield* result.failures("retries"), 1);
      assert.strictEqual(result.posted[0]?.reason, "HandlerRetriesExhausted");
    }),
  );

  it.effect.each([
    ["posting is off", { posting: { enabled: false } }],
    ["the log line is posted already", { posting: { loggers: true, level: "Warn" } }],
  ] as const)("posts nothing extra when %s", ([, settings]) =>
    Effect.gen(function* () {
      const result = yield* attempt(
        () => {
          throw new PermanentError("broken");
        },
        { settings },
      );
      assert.deepStrictEqual(result.posted, []);
    }),
  );
});

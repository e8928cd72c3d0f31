// Covers the API retries of docs/behaviour/watching.md#api-client with the vectors of docs/behaviour/watching.md#api-client, in virtual time: which errors
// are retried, how many calls each backoff setting gives and which sleeps happen between them,
// re-iterable backoffs, Retry-After (header or details) enforced or not, and the log lines.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import { KubeApiError } from "../src/KubeApiError.ts";
import { isRetryable, nextDelay, type RetryOptions, retrying } from "../src/Retries.ts";

const status = (code: number, extra: { headers?: Record<string, string>; details?: object } = {}) =>
  KubeApiError.fromResponse({
    status: code,
    headers: extra.headers ?? {},
    body: JSON.stringify({ kind: "Status", code, ...(extra.details ? { details: extra.details } : {}) }),
  })!;

/** Run a request that always fails with `error` under the retries; return the call times (s) and the exit. */
const run = (options: RetryOptions, error: unknown, horizonSeconds = 200) =>
  Effect.gen(function* () {
    const calls: Array<number> = [];
    const logs: Array<string> = [];
    const request = Effect.clockWith((clock) =>
      Effect.sync(() => calls.push(clock.currentTimeMillisUnsafe() / 1000)),
    ).pipe(Effect.andThen(Effect.fail(error)));
    const logger = Logger.make(({ message }) => {
      logs.push((Array.isArray(message) ? message : [message]).join(" "));
    });
    const fiber = yield* Effect.forkChild(
      retrying(
        options,
        "GET /api/v1/pods",
      )(request).pipe(
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "Debug"),
      ),
    );
    for (let t = 0; t < horizonSeconds * 2; t++) yield* TestClock.adjust("500 millis");
    const exit = yield* Fiber.await(fiber);
    const sleeps = calls.slice(1).map((time, i) => time - calls[i]!);
    return { calls: calls.length, sleeps, exit, logs };
  });

const opts = (errorBackoffs: RetryOptions["errorBackoffs"], enforceRetryAfter = false): RetryOptions => ({
  errorBackoffs,
  enforceRetryAfter,
});

describe("which failures are retried", () => {
  it.effect("an arbitrary (non-API) error is not retried", () =>
    Effect.gen(function* () {
      const result = yield* run(opts([1, 2, 3]), new Error("boom"));
      assert.strictEqual(result.calls, 1);
      assert.isTrue(Exit.isFailure(result.exit));
    }),
  );

  it.effect.each([400, 401, 404, 409, 410, 422, 499, 666, 999])(
    "status %i escalates at once (1 call)",
    (code) =>
      Effect.gen(function* () {
        const result = yield* run(opts([1, 2, 3]), status(code));
        assert.strictEqual(result.calls, 1);
        assert.isFalse(result.logs.some((line) => line.includes("attempt")));
      }),
  );

  it.effect.each([403, 429, 500, 503, 599])("status %i is retried (N+1 calls)", (code) =>
    Effect.gen(function* () {
      const result = yield* run(opts([1, 2, 3]), status(code));
      assert.strictEqual(result.calls, 4);
      assert.deepStrictEqual(result.sleeps, [1, 2, 3]);
    }),
  );

  it.effect.each([
    ["transport", KubeApiError.transport("ECONNRESET")],
    ["timeout", KubeApiError.timeout("request timed out")],
  ])("%s errors are retried", ([_, error]) =>
    Effect.gen(function* () {
      assert.strictEqual((yield* run(opts([1, 1]), error)).calls, 3);
    }),
  );

  it("isRetryable agrees with the table", () => {
    assert.isTrue(isRetryable(status(503)));
    assert.isFalse(isRetryable(status(404)));
    assert.isFalse(isRetryable("text"));
  });

  it("does not retry kube-apiserver's rejection of a shard selector (a 500 that never changes)", () => {
    const rejected = KubeApiError.fromResponse({
      status: 500,
      headers: {},
      body: JSON.stringify({
        kind: "Status",
        code: 500,
        message: 'invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0"',
      }),
    })!;
    assert.isFalse(isRetryable(rejected));
    assert.isTrue(isRetryable(status(500)));
  });
});

describe("backoff settings", () => {
  it.effect.each([
    ["[]", [], 1, []],
    ["[0]", [0], 2, [0]],
    ["[1]", [1], 2, [1]],
    ["[0,0]", [0, 0], 3, [0, 0]],
    ["[1,2]", [1, 2], 3, [1, 2]],
    ["5.0", 5.0, 2, [5]],
    ["defaults", [1, 1, 2, 3, 5, 8, 13, 21], 9, [1, 1, 2, 3, 5, 8, 13, 21]],
  ] as const)("%s ⇒ %i calls with sleeps %j", ([_, backoffs, calls, sleeps]) =>
    Effect.gen(function* () {
      const result = yield* run(opts(backoffs as RetryOptions["errorBackoffs"]), status(500));
      assert.strictEqual(result.calls, calls);
      assert.deepStrictEqual(result.sleeps, [...sleeps]);
    }),
  );

  it.effect("a custom re-iterable is iterated afresh for every request", () =>
    Effect.gen(function* () {
      const reiterable: Iterable<number> = {
        *[Symbol.iterator]() {
          yield* [1, 2, 3];
        },
      };
      const first = yield* run(opts(reiterable), status(500));
      const second = yield* run(opts(reiterable), status(500));
      assert.strictEqual(first.calls + second.calls, 8);
      assert.deepStrictEqual([...first.sleeps, ...second.sleeps], [1, 2, 3, 1, 2, 3]);
      assert.isTrue(first.logs.some((line) => line.startsWith("Request attempt #4 failed; escalating")));
    }),
  );
});

describe("Retry-After on 429", () => {
  const viaHeader = status(429, { headers: { "Retry-After": "10" } });
  const viaDetails = status(429, { details: { retryAfterSeconds: 10 } });

  it.effect.each([
    ["header", viaHeader],
    ["details", viaDetails],
  ])("from the %s, enforced ⇒ sleeps [10,10,10]", ([_, error]) =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* run(opts([5, 10, 15], true), error)).sleeps, [10, 10, 10]);
    }),
  );

  it.effect.each([
    ["header", viaHeader],
    ["details", viaDetails],
  ])("from the %s, not enforced ⇒ sleeps [10,10,15]", ([_, error]) =>
    Effect.gen(function* () {
      const result = yield* run(opts([5, 10, 15], false), error);
      assert.deepStrictEqual(result.sleeps, [10, 10, 15]);
      assert.isTrue(
        result.logs.some((l) => l.startsWith("Overriding the backoff 5s with the retry-after 10s")),
      );
      assert.isTrue(
        result.logs.some((l) => l.startsWith("Request attempt #1/4 failed; will retry: GET /api/v1/pods")),
      );
      assert.isTrue(
        result.logs.some((l) => l.startsWith("Request attempt #4/4 failed; escalating: GET /api/v1/pods")),
      );
    }),
  );

  it("nextDelay: never below Retry-After unless enforced exactly; the backoff without one (property)", () => {
    fc.assert(
      fc.property(
        fc.nat(1000),
        fc.option(fc.nat(1000), { nil: undefined }),
        fc.boolean(),
        (backoff, retryAfter, enforce) => {
          const delay = nextDelay(backoff, retryAfter, enforce);
          if (retryAfter === undefined) assert.strictEqual(delay, backoff);
          else if (enforce) assert.strictEqual(delay, retryAfter);
          else assert.strictEqual(delay, Math.max(backoff, retryAfter));
        },
      ),
    );
  });

  it("nextDelay never undercuts the server", () => {
    assert.strictEqual(nextDelay(5, 10, false), 10);
    assert.strictEqual(nextDelay(15, 10, false), 15);
    assert.strictEqual(nextDelay(15, 10, true), 10);
    assert.strictEqual(nextDelay(3, undefined, true), 3);
  });
});

describe("outcome", () => {
  it.effect("succeeds as soon as an attempt succeeds", () =>
    Effect.gen(function* () {
      let n = 0;
      const request = Effect.suspend(() => (++n < 3 ? Effect.fail(status(503)) : Effect.succeed("ok")));
      const fiber = yield* Effect.forkChild(retrying(opts([1, 1, 1]), "GET /x")(request));
      yield* TestClock.adjust("10 seconds");
      assert.strictEqual(yield* Fiber.join(fiber), "ok");
      assert.strictEqual(n, 3);
    }),
  );

  it.effect("escalates the last error", () =>
    Effect.gen(function* () {
      const error = status(500);
      const result = yield* run(opts([1]), error);
      assert.deepStrictEqual(result.exit, Exit.fail(error));
    }),
  );
});

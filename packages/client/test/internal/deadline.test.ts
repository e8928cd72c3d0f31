// Covers a request's deadline (src/internal/deadline.ts): the Timeout it fails with, naming the
// request and the seconds, and the race on Clock that keeps it for transports without deadlines.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as Deadline from "../../src/internal/deadline.ts";

describe("deadline", () => {
  it("a request without a response is a Timeout naming it and the seconds", () => {
    const error = Deadline.noResponse(1500, "GET /api/v1/pods");
    assert.strictEqual(error.reason, "Timeout");
    assert.strictEqual(error.message, "No response within 1.5s: GET /api/v1/pods");
  });

  it.effect("the race fails at the deadline on Clock, naming the request only then", () =>
    Effect.gen(function* () {
      let named = 0;
      const fiber = yield* Effect.forkChild(
        Effect.flip(
          Deadline.raced(Effect.never, 2000, () => {
            named += 1;
            return "PATCH /x";
          }),
        ),
      );
      yield* TestClock.adjust("1999 millis");
      assert.isUndefined(fiber.pollUnsafe());
      assert.strictEqual(named, 0);
      yield* TestClock.adjust("1 millis");
      const error = yield* Fiber.join(fiber);
      assert.strictEqual(error.message, "No response within 2s: PATCH /x");
      assert.strictEqual(named, 1);
    }),
  );

  it.effect("an answer before the deadline is the result", () =>
    Effect.gen(function* () {
      const value = yield* Deadline.raced(Effect.succeed(7), 10, () => "GET /y");
      assert.strictEqual(value, 7);
    }),
  );
});

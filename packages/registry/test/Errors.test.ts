/**
 * Errors: Kopf's hierarchy (timeouts, retries and admission errors are permanent), defaults
 * (TemporaryError delay 60, null retries at once; AdmissionError code 500), that the errors are
 * both throwable Errors and yieldable Effect failures with tags, and RegistrationError's reason.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import {
  AdmissionError,
  ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  RegistrationError,
  TemporaryError,
} from "../src/Errors.ts";

describe("instanceof relations", () => {
  it.each([
    ["PermanentError", () => new PermanentError("x"), true, false],
    ["HandlerTimeoutError", () => new HandlerTimeoutError("x"), true, false],
    ["HandlerRetriesError", () => new HandlerRetriesError("x"), true, false],
    ["AdmissionError", () => new AdmissionError("x"), true, false],
    ["TemporaryError", () => new TemporaryError("x"), false, true],
  ] as const)("%s", (_name, make, permanent, temporary) => {
    const error = make();
    assert.isTrue(error instanceof Error);
    assert.strictEqual(error instanceof PermanentError, permanent);
    assert.strictEqual(error instanceof TemporaryError, temporary);
    assert.strictEqual(error.message, "x");
  });

  it("timeouts are not retries and vice versa", () => {
    assert.isFalse(new HandlerTimeoutError("x") instanceof HandlerRetriesError);
    assert.isFalse(new HandlerRetriesError("x") instanceof HandlerTimeoutError);
    assert.isFalse(new AdmissionError("x") instanceof HandlerTimeoutError);
  });
});

describe("defaults", () => {
  it.each([
    ["no options", new TemporaryError("x"), 60],
    ["explicit delay", new TemporaryError("x", { delay: 10 }), 10],
    ["delay 0", new TemporaryError("x", { delay: 0 }), 0],
    ["delay null retries at once", new TemporaryError("x", { delay: null }), null],
  ] as const)("TemporaryError with %s", (_name, error, delay) => {
    assert.strictEqual(error.delay, delay);
  });

  it("messages default to empty strings", () => {
    assert.strictEqual(new PermanentError().message, "");
    assert.strictEqual(new TemporaryError().message, "");
    assert.strictEqual(new AdmissionError().message, "");
  });

  it.each([
    [new AdmissionError("No!"), 500],
    [new AdmissionError("No!", { code: 123 }), 123],
  ] as const)("AdmissionError code %#", (error, code) => {
    assert.strictEqual(error.code, code);
  });

  it("tags and names follow the class", () => {
    const errors = [
      new PermanentError(),
      new TemporaryError(),
      new HandlerTimeoutError(),
      new HandlerRetriesError(),
      new AdmissionError(),
    ];
    assert.deepStrictEqual(
      errors.map((e) => [e._tag, e.name]),
      [
        ["PermanentError", "PermanentError"],
        ["TemporaryError", "TemporaryError"],
        ["HandlerTimeoutError", "HandlerTimeoutError"],
        ["HandlerRetriesError", "HandlerRetriesError"],
        ["AdmissionError", "AdmissionError"],
      ],
    );
  });
});

describe("usable in plain and Effect handlers", () => {
  it("thrown and caught as a regular error", () => {
    try {
      throw new TemporaryError("not yet", { delay: 10 });
    } catch (e) {
      assert.isTrue(e instanceof TemporaryError);
      assert.strictEqual((e as TemporaryError).delay, 10);
    }
  });

  it.effect("yielded in Effect.gen, failing with the same instance", () =>
    Effect.gen(function* () {
      const error = new PermanentError("bad");
      const exit = yield* Effect.exit(
        Effect.gen(function* () {
          return yield* error;
        }),
      );
      assert.deepStrictEqual(exit, Exit.fail(error));
    }),
  );

  it.effect("recovered by tag", () =>
    Effect.gen(function* () {
      const recovered = yield* Effect.fail(new TemporaryError("later", { delay: 5 })).pipe(
        Effect.catchTag("TemporaryError", (e) => Effect.succeed(e.delay)),
      );
      assert.strictEqual(recovered, 5);
    }),
  );
});

describe("ErrorsMode and RegistrationError", () => {
  it("names the three modes", () => {
    assert.deepStrictEqual(ErrorsMode, {
      IGNORED: "ignored",
      TEMPORARY: "temporary",
      PERMANENT: "permanent",
    });
  });

  it("carries a reason and a message", () => {
    const error = new RegistrationError({ reason: "FilterWithoutField", message: "m" });
    assert.strictEqual(error._tag, "RegistrationError");
    assert.strictEqual(error.reason, "FilterWithoutField");
    assert.strictEqual(error.message, "m");
    assert.isTrue(error instanceof Error);
  });
});

/**
 * The facade's errors: Kopf's instanceof relations, defaults, and use from plain and Effect
 * handlers (the full behaviour is covered in @kopf/registry).
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as kopf from "../src/index.ts";

describe("errors", () => {
  it.each([
    ["PermanentError", new kopf.PermanentError("x"), [kopf.PermanentError]],
    ["TemporaryError", new kopf.TemporaryError("x"), [kopf.TemporaryError]],
    [
      "HandlerTimeoutError",
      new kopf.HandlerTimeoutError("x"),
      [kopf.PermanentError, kopf.HandlerTimeoutError],
    ],
    [
      "HandlerRetriesError",
      new kopf.HandlerRetriesError("x"),
      [kopf.PermanentError, kopf.HandlerRetriesError],
    ],
    ["AdmissionError", new kopf.AdmissionError("x"), [kopf.PermanentError, kopf.AdmissionError]],
  ] as const)("%s", (_name, error, classes) => {
    const all = [
      kopf.PermanentError,
      kopf.TemporaryError,
      kopf.HandlerTimeoutError,
      kopf.HandlerRetriesError,
      kopf.AdmissionError,
    ];
    for (const cls of all) {
      assert.strictEqual(error instanceof cls, (classes as ReadonlyArray<unknown>).includes(cls), cls.name);
    }
    assert.instanceOf(error, Error);
  });

  it("keeps Kopf's defaults", () => {
    assert.strictEqual(new kopf.TemporaryError("x").delay, 60);
    assert.strictEqual(new kopf.TemporaryError("x", { delay: null }).delay, null);
    assert.strictEqual(new kopf.AdmissionError("x").code, 500);
    assert.strictEqual(kopf.ErrorsMode.PERMANENT, "permanent");
  });

  it.effect("fails Effect handlers when yielded", () =>
    Effect.gen(function* () {
      const error = new kopf.TemporaryError("not yet", { delay: 10 });
      const exit = yield* Effect.exit(
        Effect.gen(function* () {
          return yield* error;
        }),
      );
      assert.deepStrictEqual(exit, Exit.fail(error));
    }),
  );
});

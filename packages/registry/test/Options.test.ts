/**
 * Option validation (docs/behaviour/registration.md#validation-at-registration and the number/mode checks): field parsing, operations merging,
 * meta filter nulls, value/old/new combinations, and properties of the number checks.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import { PRESENT } from "../src/Filters.ts";
import * as Options from "../src/Options.ts";

const reason = (result: Result.Result<unknown, { readonly reason: string }>) =>
  Result.isFailure(result) ? result.failure.reason : "ok";

describe("parseField", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    [[], undefined],
    ["spec", ["spec"]],
    ["spec.size", ["spec", "size"]],
    [
      ["metadata", "labels", "app.kubernetes.io/name"],
      ["metadata", "labels", "app.kubernetes.io/name"],
    ],
  ] as const)("%j", (spec, expected) => {
    assert.deepStrictEqual(Result.getOrThrow(Options.parseField(spec as never)), expected);
  });

  it.each([[5], [{ a: 1 }], [[1, 2]]])("rejects %j", (spec) => {
    assert.strictEqual(reason(Options.parseField(spec as never)), "InvalidOption");
  });
});

describe("parseOperations", () => {
  it.each([
    [{}, undefined],
    [{ operations: ["CREATE"] }, new Set(["CREATE"])],
    [{ operations: new Set(["CREATE", "UPDATE"]) }, new Set(["CREATE", "UPDATE"])],
    [{ operation: "DELETE" }, new Set(["DELETE"])],
    [{ operation: "DELETE", operations: ["CREATE"] }, new Set(["CREATE", "DELETE"])],
  ] as const)("%j", (options, expected) => {
    assert.deepStrictEqual<unknown>(Result.getOrThrow(Options.parseOperations(options as never)), expected);
  });

  it("rejects empty operations", () => {
    assert.strictEqual(reason(Options.parseOperations({ operations: [] })), "EmptyOperations");
  });

  it.each([
    [{ operations: "CREATE" }],
    [{ operations: ["CREATE", "PATCH"] }],
    [{ operation: "create" }],
    [{ operations: 5 }],
  ])("rejects %j", (options) => {
    assert.strictEqual(reason(Options.parseOperations(options as never)), "InvalidOption");
  });
});

describe("checkValueFilters and checkMetaFilters", () => {
  it.each([
    [{}, "ok"],
    [{ field: "f" }, "ok"],
    [{ field: "f", value: "x" }, "ok"],
    [{ field: "f", old: "x", new: PRESENT }, "ok"],
    [{ value: "x" }, "FilterWithoutField"],
    [{ new: "x" }, "FilterWithoutField"],
    [{ field: "f", value: "x", new: "y" }, "ValueWithOldNew"],
    [{ field: "f", value: null, old: "y" }, "ok"],
  ] as const)("%j", (options, expected) => {
    assert.strictEqual(reason(Options.checkValueFilters(options as never)), expected);
  });

  it.each([
    [{ labels: { a: "b", c: PRESENT } }, "ok"],
    [{ labels: { a: null } }, "NullMetaFilter"],
    [{ annotations: { a: undefined } }, "NullMetaFilter"],
    [{ labels: { a: 5 } }, "InvalidOption"],
    [{ labels: { a: Symbol("x") } }, "InvalidOption"],
    [{ labels: ["a"] }, "InvalidOption"],
    [{ annotations: "a=b" }, "InvalidOption"],
  ] as const)("%j", (options, expected) => {
    assert.strictEqual(reason(Options.checkMetaFilters(options as never)), expected);
  });
});

describe("checkBehaviour", () => {
  const keys = [
    "timeout",
    "backoff",
    "interval",
    "idle",
    "cancellationBackoff",
    "cancellationTimeout",
    "cancellationPolling",
  ];

  it("accepts non-negative finite numbers of seconds (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.double({ min: 0, max: 1e9, noNaN: true }), (key, value) => {
        assert.strictEqual(reason(Options.checkBehaviour({ [key]: value })), "ok");
      }),
    );
  });

  it("rejects negative, infinite, NaN and non-number values (property)", () => {
    const bad = fc.oneof(
      fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, "5", true, null),
    );
    fc.assert(
      fc.property(fc.constantFrom(...keys), bad, (key, value) => {
        assert.strictEqual(reason(Options.checkBehaviour({ [key]: value })), "InvalidOption");
      }),
    );
  });

  it.each([
    [{ retries: 0 }, "ok"],
    [{ retries: 3 }, "ok"],
    [{ retries: -1 }, "InvalidOption"],
    [{ retries: 2.5 }, "InvalidOption"],
    [{ errors: "ignored" }, "ok"],
    [{ errors: "IGNORED" }, "InvalidOption"],
    [{ initialDelay: () => 1 }, "ok"],
    [{ initialDelay: 0 }, "ok"],
    [{ initialDelay: -2 }, "InvalidOption"],
    [{ optional: true }, "ok"],
    [{ optional: "yes" }, "InvalidOption"],
    [{ sharp: 1 }, "InvalidOption"],
    [{ when: () => true }, "ok"],
    [{ when: true }, "InvalidOption"],
    [{ subresource: "status" }, "ok"],
    [{ subresource: 5 }, "InvalidOption"],
  ] as const)("%j", (options, expected) => {
    assert.strictEqual(reason(Options.checkBehaviour(options)), expected);
  });
});

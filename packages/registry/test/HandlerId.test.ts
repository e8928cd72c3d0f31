/**
 * Handler ids (docs/behaviour/registration.md#handler-ids adapted to JavaScript per docs/deviations-from-kopf.md): function names, bound functions,
 * explicit ids, the field suffix (also with an explicit id), sub-handler prefixes, and the
 * RegistrationError for anonymous functions.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import * as HandlerId from "../src/HandlerId.ts";

function some_fn() {}
const arrowFn = () => {};

const ok = (result: Result.Result<string, unknown>) => {
  assert.isTrue(Result.isSuccess(result));
  return Result.getOrThrow(result);
};

describe("callableId", () => {
  it.each([
    ["a plain function", some_fn, "some_fn"],
    ["a named arrow", arrowFn, "arrowFn"],
    ["a bound function", some_fn.bind(null), "some_fn"],
    ["a doubly bound function", some_fn.bind(null).bind(null), "some_fn"],
    ["a method", { method() {} }.method, "method"],
  ] as const)("%s", (_name, fn, expected) => {
    assert.strictEqual(ok(HandlerId.callableId(fn)), expected);
  });

  it.each([
    ["an inline arrow", [() => {}][0]!],
    ["an anonymous function expression", [() => {}][0]!],
    ["a bound anonymous function", [() => {}][0]!.bind(null)],
  ] as const)("rejects %s", (_name, fn) => {
    const result = HandlerId.callableId(fn);
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) {
      assert.strictEqual(result.failure.reason, "AnonymousHandler");
      assert.include(result.failure.message, "{ id:");
    }
  });
});

describe("make", () => {
  it.each([
    ["function name", { fn: some_fn }, "some_fn"],
    ["explicit id", { fn: some_fn, id: "my-id" }, "my-id"],
    ["an anonymous function without id", { fn: [() => {}][0]! }, undefined],
    ["explicit id + field", { fn: some_fn, id: "id", field: ["field", "subfield"] }, "id/field.subfield"],
    ["name + field", { fn: some_fn, field: ["spec", "size"] }, "some_fn/spec.size"],
    ["empty field", { fn: some_fn, field: [] }, "some_fn"],
    ["prefix", { fn: some_fn, prefix: "create_fn" }, "create_fn/some_fn"],
    ["nested prefix", { fn: some_fn, id: "sub", prefix: "create_fn/item1" }, "create_fn/item1/sub"],
  ] as const)("%s", (_name, parts, expected) => {
    const result = HandlerId.make(parts);
    if (expected === undefined) assert.isTrue(Result.isFailure(result));
    else assert.strictEqual(ok(result), expected);
  });

  it("accepts an anonymous function with an explicit id", () => {
    assert.strictEqual(ok(HandlerId.make({ fn: [() => {}][0]!, id: "anon" })), "anon");
  });

  it.each([[""], [42 as unknown as string]])("rejects the id %j", (id) => {
    const result = HandlerId.make({ fn: some_fn, id });
    assert.isTrue(Result.isFailure(result) && result.failure.reason === "InvalidOption");
  });
});

/** The depth pre-scan of JSON texts: brackets in strings and escapes do not count; deep texts are caught early. */
import { assert, describe, it } from "@effect/vitest";
import { JsonDepth } from "../src/index.ts";

describe("JsonDepth.exceeds", () => {
  it.each([
    ["{}", 0, true],
    ["{}", 1, false],
    ['{"a":[[1]]}', 3, false],
    ['{"a":[[1]]}', 2, true],
    ['"[[[[["', 1, false],
    ['["\\"[[[["]', 1, false],
    ['["\\\\"[[', 2, true],
    ["[][][][]", 1, false],
    ["not json [ [", 1, true],
    ["", 0, false],
  ] as const)("exceeds(%j, %d) = %s", (text, max, expected) => {
    assert.strictEqual(JsonDepth.exceeds(Buffer.from(text), max), expected);
  });

  it("scans a million levels without recursion", () => {
    const deep = Buffer.from(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`);
    assert.isTrue(JsonDepth.exceeds(deep, 256));
    assert.isFalse(JsonDepth.exceeds(deep, 1_000_000));
  });
});

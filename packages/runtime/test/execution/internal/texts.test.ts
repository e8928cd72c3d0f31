// Covers Kopf's renderings in log lines: Python's timedelta text, `str(e) or repr(e)`.
import { describe, expect, it } from "@effect/vitest";
import { TemporaryError } from "@kopf/registry";
import { describeError, formatTimedelta, messageOf } from "../../../src/execution/internal/texts.ts";

describe("formatTimedelta", () => {
  it.each([
    [0, "0:00:00"],
    [5_000_000, "0:00:05"],
    [60_000_000, "0:01:00"],
    [1_500_000, "0:00:01.500000"],
    [3_723_000_001, "1:02:03.000001"],
    [86_400_000_000, "1 day, 0:00:00"],
    [2 * 86_400_000_000 + 3_600_000_000, "2 days, 1:00:00"],
    [-1_000_000, "-1 day, 23:59:59"],
  ])("%d µs ⇒ %s", (micros, text) => {
    expect(formatTimedelta(micros)).toBe(text);
  });
});

describe("describeError", () => {
  it.each([
    ["a message", new Error("boom"), "boom"],
    ["an empty message", new Error(""), "Error()"],
    ["a Kopf error without message", new TemporaryError(), "TemporaryError()"],
    ["a string", "oops", "oops"],
    ["a number", 42, "42"],
    ["an object with a message", { message: "m" }, "m"],
  ] as const)("%s", (_name, error, text) => {
    expect(describeError(error)).toBe(text);
  });

  it("keeps the plain message for storage", () => {
    expect(messageOf(new TemporaryError())).toBe("");
  });
});

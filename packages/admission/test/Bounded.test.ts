/** Bounds on text from requests: cut with a marker naming the original length, brief previews, bounded loggers. */
import { assert, describe, it } from "@effect/vitest";
import type { Logger } from "@kopf/registry";
import { Bounded } from "../src/index.ts";

describe("Bounded.text", () => {
  it.each([
    ["abc", 3, "abc"],
    ["abcdef", 3, "abc…[truncated, 6 characters]"],
    ["", 0, ""],
    ["ab😀cd", 3, "ab…[truncated, 6 characters]"],
  ] as const)("text(%j, %d) = %j", (value, max, expected) => {
    assert.strictEqual(Bounded.text(value, max), expected);
  });
});

describe("Bounded.preview", () => {
  it.each([
    ["Pod", '"Pod"'],
    [123, "123"],
    [true, "true"],
    [null, "null"],
    [undefined, "nothing"],
    [[1, 2], "an array of 2 items"],
    [[1], "an array of 1 item"],
    [{ a: 1 }, "an object with 1 key"],
    ["x".repeat(100), `"${"x".repeat(64)}"…[truncated, 100 characters]`],
  ] as const)("preview(%j) = %s", (value, expected) => {
    assert.strictEqual(Bounded.preview(value), expected);
  });
});

describe("Bounded.logger", () => {
  it("cuts messages, string arguments and errors, and passes short ones unchanged", () => {
    const lines: Array<[string, string, ReadonlyArray<unknown>]> = [];
    const record =
      (level: string) =>
      (message: string, ...args: ReadonlyArray<unknown>) =>
        lines.push([level, message, args]);
    const target: Logger = {
      debug: record("debug"),
      info: record("info"),
      warning: record("warning"),
      error: record("error"),
      exception: (message, error) => lines.push(["exception", message, [error]]),
    };
    const logger = Bounded.logger(target, 10);
    const short = new Error("short");
    logger.info("x".repeat(50), "y".repeat(50), 5);
    logger.error("fine");
    logger.exception("failed", short);
    logger.exception("failed", new TypeError("z".repeat(50)));
    assert.deepStrictEqual(lines[0], [
      "info",
      "xxxxxxxxxx…[truncated, 50 characters]",
      ["yyyyyyyyyy…[truncated, 50 characters]", 5],
    ]);
    assert.deepStrictEqual(lines[1], ["error", "fine", []]);
    assert.strictEqual(lines[2]?.[2][0], short);
    const bounded = lines[3]?.[2][0] as Error;
    assert.strictEqual(bounded.name, "TypeError");
    assert.strictEqual(bounded.message, "zzzzzzzzzz…[truncated, 50 characters]");
    assert.isAtMost(bounded.stack?.length ?? 0, 40 + 30);
  });
});

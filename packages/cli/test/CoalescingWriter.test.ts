// CoalescingWriter: the text of one turn reaches the sink in one write, in order; flush() writes
// what is pending at once (and nothing twice); a batch past the cap is written at once.
import { describe, expect, it } from "vitest";
import * as CoalescingWriter from "../src/CoalescingWriter.ts";

const harness = (maxPending?: number) => {
  const writes: Array<string> = [];
  const later: Array<() => void> = [];
  const writer = CoalescingWriter.make(
    (text) => writes.push(text),
    (run) => later.push(run),
    maxPending,
  );
  const endTurn = () => {
    for (const run of later.splice(0)) run();
  };
  return { writes, later, writer, endTurn };
};

describe("CoalescingWriter", () => {
  it("writes the lines of one turn once, in order, after the turn", () => {
    const { writes, later, writer, endTurn } = harness();
    writer.write("one\n");
    writer.write("two\n");
    writer.write("three\n");
    expect(writes).toEqual([]);
    expect(later).toHaveLength(1);
    endTurn();
    expect(writes).toEqual(["one\ntwo\nthree\n"]);
    writer.write("four\n");
    endTurn();
    expect(writes).toEqual(["one\ntwo\nthree\n", "four\n"]);
  });

  it("flush() writes what is pending at once, and the end of the turn then writes nothing", () => {
    const { writes, writer, endTurn } = harness();
    writer.write("before exit\n");
    writer.flush();
    expect(writes).toEqual(["before exit\n"]);
    endTurn();
    writer.flush();
    expect(writes).toEqual(["before exit\n"]);
  });

  it("writes at once when the pending text reaches the cap", () => {
    const { writes, writer, endTurn } = harness(10);
    writer.write("12345");
    expect(writes).toEqual([]);
    writer.write("67890");
    expect(writes).toEqual(["1234567890"]);
    writer.write("x");
    endTurn();
    expect(writes).toEqual(["1234567890", "x"]);
  });

  it("ignores empty text (no write, nothing scheduled)", () => {
    const { writes, later, writer } = harness();
    writer.write("");
    expect(later).toHaveLength(0);
    writer.flush();
    expect(writes).toEqual([]);
  });
});

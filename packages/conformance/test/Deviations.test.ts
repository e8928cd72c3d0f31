// Covers the deviations table: decoding with clear errors, and the two-way check (unlisted
// differences, stale entries, entries for interactions that did not run, and the counts).
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import type { Difference } from "../src/Compare.ts";
import * as Deviations from "../src/Deviations.ts";

const diff = (path: string): Difference => ({ path, real: 1, emulator: 2 });
const entry = (interaction: string, ...paths: Array<string>) => ({ interaction, paths, reason: "because" });

describe("Deviations.decode", () => {
  it("accepts a list of entries", () => {
    expect(Deviations.decode([entry("a/b", "body.x")])).toEqual(Result.succeed([entry("a/b", "body.x")]));
  });

  it.each([
    ["not a list", { a: 1 }, "NotAList"],
    ["no reason", [{ interaction: "a/b", paths: ["x"], reason: " " }], "BadEntry"],
    ["no paths", [{ interaction: "a/b", paths: [], reason: "r" }], "BadEntry"],
    ["empty path", [{ interaction: "a/b", paths: [""], reason: "r" }], "BadEntry"],
    ["no interaction", [{ paths: ["x"], reason: "r" }], "BadEntry"],
    ["duplicate", [entry("a/b", "x"), entry("a/b", "y")], "Duplicate"],
  ])("rejects %s", (_name, json, reason) => {
    const decoded = Deviations.decode(json);
    expect(Result.isFailure(decoded) && decoded.failure.reason).toBe(reason);
  });
});

describe("Deviations.check", () => {
  const compared = [
    { interaction: "s/match", differences: [] },
    { interaction: "s/listed", differences: [diff("body.metadata.managedFields[0].time"), diff("status")] },
    { interaction: "s/partly", differences: [diff("body.a"), diff("body.b")] },
  ];

  it("passes when every difference is listed and every entry still differs", () => {
    const verdict = Deviations.check(
      [entry("s/listed", "body.metadata.managedFields", "status"), entry("s/partly", "body")],
      compared,
    );
    expect(verdict).toEqual({
      interactions: 3,
      matching: 1,
      deviating: 2,
      unlisted: [],
      stale: [],
      unknown: [],
    });
  });

  it("reports differences no entry covers", () => {
    const verdict = Deviations.check([entry("s/listed", "status"), entry("s/partly", "body.a")], compared);
    expect(verdict.unlisted.map((u) => `${u.interaction} ${u.difference.path}`)).toEqual([
      "s/listed body.metadata.managedFields[0].time",
      "s/partly body.b",
    ]);
    expect(verdict.deviating).toBe(0);
  });

  it("reports entries that no longer differ, path by path", () => {
    const verdict = Deviations.check(
      [
        entry("s/match", "body"),
        entry("s/listed", "status", "body.metadata", "body.spec"),
        entry("s/partly", "body"),
      ],
      compared,
    );
    expect(verdict.stale).toEqual([
      { interaction: "s/match", path: "body" },
      { interaction: "s/listed", path: "body.spec" },
    ]);
  });

  it("lets one entry cover several interactions with a pattern, stale only if it covers nothing", () => {
    const covering = Deviations.check([entry("s/*", "status", "body")], compared);
    expect(covering.unlisted).toEqual([]);
    expect(covering.stale).toEqual([]);
    expect(covering.deviating).toBe(2);
    const staleStar = Deviations.check([entry("s/*", "status", "body", "body.spec")], compared);
    expect(staleStar.stale).toEqual([{ interaction: "s/*", path: "body.spec" }]);
    expect(Deviations.check([entry("x/*", "body")], compared).unknown).toEqual(["x/*"]);
  });

  it("reports entries for interactions that did not run", () => {
    const verdict = Deviations.check([entry("s/gone", "body")], compared);
    expect(verdict.unknown).toEqual(["s/gone"]);
  });
});

describe("Deviations.markdown", () => {
  it("renders one row per entry, escaping pipes and joining paths", () => {
    expect(Deviations.markdown([{ interaction: "a/b", paths: ["body.x", "status"], reason: "a | b" }])).toBe(
      "| interaction | paths | reason |\n| --- | --- | --- |\n| `a/b` | `body.x`<br>`status` | a \\| b |\n",
    );
  });
});

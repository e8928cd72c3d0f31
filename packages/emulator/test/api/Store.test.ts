// Covers the store's history look-up: where a watch resuming from a resourceVersion starts in the
// history (a binary search) agrees with reading the history from the start, for histories with
// gaps between versions (other tables' writes) and versions before, inside, between and after.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTINS } from "../../src/api/ResourceType.ts";
import { type StoredEvent, Table } from "../../src/api/Store.ts";

const configMaps = BUILTINS.find((type) => type.plural === "configmaps");

const tableWith = (rvs: ReadonlyArray<number>): Table => {
  if (configMaps === undefined) throw new Error("no configmaps type");
  const table = new Table(configMaps, 0, 10);
  table.history = rvs.map(
    (rv): StoredEvent => ({ type: "MODIFIED", rv, object: {}, previous: undefined, at: 0 }),
  );
  return table;
};

describe("Table.firstAfter", () => {
  it.each([
    { rvs: [], rv: 5, first: 0 },
    { rvs: [3], rv: 2, first: 0 },
    { rvs: [3], rv: 3, first: 1 },
    { rvs: [3], rv: 4, first: 1 },
    { rvs: [2, 4, 9, 10], rv: 1, first: 0 },
    { rvs: [2, 4, 9, 10], rv: 4, first: 2 },
    { rvs: [2, 4, 9, 10], rv: 5, first: 2 },
    { rvs: [2, 4, 9, 10], rv: 9, first: 3 },
    { rvs: [2, 4, 9, 10], rv: 10, first: 4 },
    { rvs: [2, 4, 9, 10], rv: 99, first: 4 },
  ])("history $rvs, after $rv: from position $first", ({ rvs, rv, first }) => {
    expect(tableWith(rvs).firstAfter(rv)).toBe(first);
  });

  it("agrees with a scan from the start", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 1200 }),
        (gaps, rv) => {
          const rvs: Array<number> = [];
          for (const gap of gaps) rvs.push((rvs.at(-1) ?? 0) + gap);
          const scanned = rvs.findIndex((version) => version > rv);
          expect(tableWith(rvs).firstAfter(rv)).toBe(scanned === -1 ? rvs.length : scanned);
        },
      ),
      { numRuns: 500 },
    );
  });
});

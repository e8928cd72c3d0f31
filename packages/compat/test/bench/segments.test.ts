// Covers the start benchmark's segments of a burst: where it is read (250, 500, then doubling, and
// the burst's size), the CPU per object of each segment from consecutive readings (readings that
// handled nothing more skipped), and how the segments are printed.
import { describe, expect, it } from "vitest";
import * as Segments from "../../bench/internal/segments.ts";

describe("Segments.bounds", () => {
  it.each<{ n: number; expected: ReadonlyArray<number> }>([
    { n: 0, expected: [] },
    { n: 100, expected: [100] },
    { n: 250, expected: [250] },
    { n: 300, expected: [250, 300] },
    { n: 1000, expected: [250, 500, 1000] },
    { n: 1500, expected: [250, 500, 1000, 1500] },
    { n: 10000, expected: [250, 500, 1000, 2000, 4000, 8000, 10000] },
  ])("a burst of $n objects is read at $expected", ({ n, expected }) => {
    expect(Segments.bounds(n)).toEqual(expected);
  });
});

describe("Segments.segments", () => {
  // Readings and segments as tuples: [handled, CPU ms] and [from, to, ms per object].
  const reading = ([handled, cpuMs]: readonly [number, number]): Segments.Reading => ({ handled, cpuMs });
  it.each<{
    name: string;
    start: readonly [number, number];
    readings: ReadonlyArray<readonly [number, number]>;
    expected: ReadonlyArray<readonly [number, number, number]>;
  }>([
    { name: "no readings", start: [0, 10], readings: [], expected: [] },
    {
      name: "two segments, from the CPU used before the burst",
      start: [0, 100],
      readings: [
        [250, 540],
        [500, 690],
      ],
      expected: [
        [0, 250, 1.76],
        [250, 500, 0.6],
      ],
    },
    {
      name: "a reading past its bound counts the objects it saw",
      start: [0, 0],
      readings: [
        [260, 520],
        [500, 640],
      ],
      expected: [
        [0, 260, 2],
        [260, 500, 0.5],
      ],
    },
    {
      name: "a reading that handled nothing more is skipped",
      start: [0, 0],
      readings: [
        [250, 250],
        [250, 300],
        [500, 400],
      ],
      expected: [
        [0, 250, 1],
        [250, 500, 0.6],
      ],
    },
  ])("$name", ({ start, readings, expected }) => {
    const got = Segments.segments(reading(start), readings.map(reading));
    expect(got.map((s) => [s.from, s.to])).toEqual(expected.map(([from, to]) => [from, to]));
    for (const [i, s] of got.entries()) {
      expect(s.msPerObject).toBeCloseTo(expected[i]?.[2] ?? Number.NaN, 9);
    }
  });
});

describe("Segments.format", () => {
  it("prints each segment's objects, counted from 1, and its CPU per object to two places", () => {
    expect(
      Segments.format([
        { from: 0, to: 250, msPerObject: 1.7649 },
        { from: 250, to: 500, msPerObject: 0.6 },
      ]),
    ).toBe("1-250 1.76, 251-500 0.6");
  });
  it("prints nothing for no segments", () => {
    expect(Segments.format([])).toBe("");
  });
});

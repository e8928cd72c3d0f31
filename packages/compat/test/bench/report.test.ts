// Covers the side-by-side report's decisions: the median of the rounds (odd and even counts, a
// round that measured nothing), the ratio and the verdict against a target (on the ratio, or on
// our own value), the rounds' spreads, the floor operator's figure where it was measured, and
// the printed table's cells.
import { describe, expect, it } from "vitest";
import * as Report from "../../bench/internal/report.ts";

const samplesOf = (entries: Record<string, ReadonlyArray<number>>): Report.Samples =>
  new Map(Object.entries(entries).map(([key, values]) => [key.replace("/", "\u0000"), values]));

const rowOf = (rows: ReadonlyArray<Report.Row>, figure: string): Report.Row => {
  const found = rows.find((row) => row.figure === figure);
  if (found === undefined) throw new Error(`no row ${figure}`);
  return found;
};

describe("Report.rows", () => {
  it.each<{
    name: string;
    ours: ReadonlyArray<number>;
    kopf: ReadonlyArray<number>;
    expected: Partial<Report.Row>;
  }>([
    {
      name: "odd rounds: the middle one; a ratio under the target is met",
      ours: [3, 1, 2],
      kopf: [10, 30, 20],
      expected: { ours: 2, kopf: 20, ratio: 0.1, met: true, oursSpread: { min: 1, max: 3 } },
    },
    {
      name: "even rounds: the mean of the middle two",
      ours: [1, 2, 3, 4],
      kopf: [4, 4, 4, 4],
      expected: { ours: 2.5, kopf: 4, ratio: 0.63, met: false, kopfSpread: { min: 4, max: 4 } },
    },
    {
      name: "a round that measured nothing is left out",
      ours: [Number.NaN, 1, 3],
      kopf: [8, Number.NaN],
      expected: { ours: 2, kopf: 8, ratio: 0.25, met: true, oursSpread: { min: 1, max: 3 } },
    },
    {
      name: "a ratio exactly at the target is met",
      ours: [1],
      kopf: [4],
      expected: { ratio: 0.25, met: true },
    },
    {
      name: "a ratio just over the target is written with the decimals that show it over",
      ours: [0.75],
      kopf: [2.96],
      expected: { ratio: 0.253, met: false },
    },
    {
      name: "a ratio just under the target that two decimals would round up to it stays two decimals",
      ours: [0.7499],
      kopf: [3],
      expected: { ratio: 0.25, met: true },
    },
    {
      name: "a ratio over the target by a few hundred-thousandths is written with five decimals",
      ours: [2.5003],
      kopf: [10],
      expected: { ratio: 0.25003, met: false },
    },
  ])("$name", ({ ours, kopf, expected }) => {
    const rows = Report.rows(
      samplesOf({ "ours/deleteCpu/10": ours, "kopf/deleteCpu/10": kopf }),
      [10],
      ["ours", "kopf"],
    );
    const row = rowOf(rows, "CPU per object, deletion, 10");
    expect(row).toMatchObject(expected);
  });

  it("with no rounds of ours: no figure, spread, ratio or verdict", () => {
    const rows = Report.rows(samplesOf({ "kopf/deleteCpu/10": [8] }), [10], ["ours", "kopf"]);
    const row = rowOf(rows, "CPU per object, deletion, 10");
    expect(row.ours).toBeNaN();
    expect(row).toMatchObject({ kopf: 8, oursSpread: null, ratio: null, met: null });
  });

  it("judges an own limit on our value alone, whatever Kopf's", () => {
    const rows = Report.rows(
      samplesOf({ "ours/writes/create/10": [3, 3, 3], "kopf/writes/create/10": [3, 3, 3] }),
      [10],
      ["ours", "kopf"],
    );
    expect(rowOf(rows, "writes per object, create handler")).toMatchObject({
      ours: 3,
      ratio: 1,
      target: 2,
      ownLimit: true,
      met: false,
    });
  });

  it("without Kopf: no Kopf figure, ratio or spread, and ratio targets have no verdict", () => {
    const rows = Report.rows(samplesOf({ "ours/start": [0.3, 0.4] }), [10], ["ours"]);
    expect(rowOf(rows, "start (spawn → first object handled)")).toMatchObject({
      ours: 0.35,
      kopf: null,
      ratio: null,
      kopfSpread: null,
      oursSpread: { min: 0.3, max: 0.4 },
      met: null,
    });
  });

  it("gives the floor operator's median where it was measured, and nothing elsewhere", () => {
    const rows = Report.rows(
      samplesOf({
        "ours/createCpu/create/10": [1.2, 1.1, 1.3],
        "kopf/createCpu/create/10": [3.8, 3.7, 3.9],
        "floor/createCpu/create/10": [0.3, 0.34, 0.31],
        "ours/deleteCpu/10": [0.8],
      }),
      [10],
      ["ours", "kopf"],
    );
    expect(rowOf(rows, "CPU per object, create handler, 10")).toMatchObject({ ours: 1.2, floor: 0.31 });
    expect(rowOf(rows, "CPU per object, deletion, 10").floor).toBeNull();
  });

  it("has a row per size and variant, and the first thousand of the largest size", () => {
    const figures = Report.rows(new Map(), [1000, 5000], ["ours", "kopf"]).map((row) => row.figure);
    expect(figures).toContain("peak RSS, 5000 objects, with delete handler");
    expect(figures).toContain("CPU per object, create with finalizer, 1000");
    expect(figures.filter((figure) => figure.includes("first 1,000"))).toHaveLength(1);
  });
});

describe("Report.table", () => {
  it("prints each row's figures, verdict and the rounds' spreads, aligned", () => {
    const rows = Report.rows(
      samplesOf({ "ours/rssAfterStart": [66.2, 66, 66.1], "kopf/rssAfterStart": [45.3, 45.2, 45.3] }),
      [10],
      ["ours", "kopf"],
    );
    const lines = Report.table(rows.filter((row) => row.figure === "RSS after start")).split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      "figure",
      "ours",
      "Kopf",
      "ours/Kopf",
      "target",
      "met",
      "rounds: ours",
      "rounds: Kopf",
    ]);
    expect(lines[1]?.split(/\s{2,}/)).toEqual([
      "RSS after start (MiB)",
      "66.1",
      "45.3",
      "1.46×",
      "≤ 1.5×",
      "yes",
      "66-66.2",
      "45.2-45.3",
    ]);
  });

  it("adds a floor column when the floor operator was measured, with dashes where it was not", () => {
    const rows = Report.rows(
      samplesOf({
        "ours/createCpu/create/10": [1.2],
        "kopf/createCpu/create/10": [4.8],
        "floor/createCpu/create/10": [0.3],
        "ours/deleteCpu/10": [0.8],
        "kopf/deleteCpu/10": [4],
      }),
      [10],
      ["ours", "kopf"],
    );
    const lines = Report.table(
      rows.filter((row) => row.figure.endsWith("create handler, 10") || row.figure.endsWith("deletion, 10")),
    ).split("\n");
    expect(lines[0]?.split(/\s{2,}/).slice(0, 5)).toEqual(["figure", "ours", "Kopf", "floor", "ours/Kopf"]);
    expect(lines[1]?.split(/\s{2,}/).slice(0, 5)).toEqual([
      "CPU per object, create handler, 10 (ms)",
      "1.2",
      "4.8",
      "0.3",
      "0.25×",
    ]);
    expect(lines[2]?.split(/\s{2,}/).slice(0, 5)).toEqual([
      "CPU per object, deletion, 10 (ms)",
      "0.8",
      "4",
      "—",
      "0.2×",
    ]);
  });

  it("prints a single value for rounds that agree, and dashes where nothing was measured", () => {
    const rows = Report.rows(samplesOf({ "ours/soakRssRatio": [1.2, 1.2] }), [10], ["ours"]);
    const line = Report.table(rows.filter((row) => row.figure.startsWith("soak"))).split("\n")[1];
    expect(line?.split(/\s{2,}/)).toEqual([
      "soak: RSS after soak / RSS after start (×)",
      "1.2",
      "—",
      "—",
      "ours ≤ 1.5",
      "yes",
      "1.2",
      "—",
    ]);
  });
});

describe("Report.markdown", () => {
  it("writes the README's table: labels, whole MiB, the floor column, own limits and spreads", () => {
    const rows = Report.rows(
      samplesOf({
        "ours/peakRss/create/10000": [121.6, 122.4, 124.1],
        "kopf/peakRss/create/10000": [270.2, 271, 304],
        "ours/createCpu/create/10000": [1.12, 1.07, 1.134],
        "kopf/createCpu/create/10000": [3.37, 3.11, 3.56],
        "floor/createCpu/create/10000": [0.3, 0.31, 0.29],
        "ours/reruns/create/10000": [0, 0, 0],
        "kopf/reruns/create/10000": [0, 0, 0],
        "ours/soakRssRatio": [1.25, 1.24, 1.25],
        "kopf/soakRssRatio": [2.8, 2.75, 2.83],
      }),
      [10000],
      ["ours", "kopf"],
    );
    const wanted = [
      "peak RSS, 10000 objects, create handler",
      "CPU per object, create handler, 10000",
      "create handler runs beyond one per object, 10000",
      "soak: RSS after soak / RSS after start",
    ];
    const lines = Report.markdown(
      rows.filter((row) => wanted.includes(row.figure)),
      { cycles: 20, objects: 200 },
    )
      .split("\n")
      .map((line) =>
        line
          .split("|")
          .map((cell) => cell.trim())
          .slice(1, -1),
      );
    expect(lines[0]).toEqual([
      "figure",
      "ours",
      "Kopf",
      "floor",
      "ours/Kopf",
      "target",
      "met",
      "rounds, ours",
      "rounds, Kopf",
    ]);
    expect(lines[1]?.every((cell) => /^-+$/.test(cell))).toBe(true);
    expect(lines.slice(2)).toEqual([
      [
        "peak RSS, 10,000 objects, create handler, MiB",
        "122",
        "271",
        "—",
        "0.45×",
        "≤ 1×",
        "yes",
        "122-124",
        "270-304",
      ],
      [
        "CPU per object, create handler, 10,000, ms",
        "1.12",
        "3.37",
        "0.3",
        "0.33×",
        "≤ 0.25×",
        "no",
        "1.07-1.13",
        "3.11-3.56",
      ],
      [
        "create handler runs beyond one per object, 10,000 objects",
        "0",
        "0",
        "—",
        "—",
        "ours ≤ 0",
        "yes",
        "0",
        "0",
      ],
      [
        "RSS after a soak of 20 × 200 objects / after start",
        "1.25",
        "2.8",
        "—",
        "0.45×",
        "ours ≤ 1.5",
        "yes",
        "1.24-1.25",
        "2.75-2.83",
      ],
    ]);
  });

  it("has no floor column when the floor operator was not measured", () => {
    const rows = Report.rows(samplesOf({ "ours/start": [0.3] }), [10], ["ours"]);
    const head = Report.markdown(rows, { cycles: 1, objects: 1 }).split("\n")[0];
    expect(head).not.toContain("floor");
  });
});

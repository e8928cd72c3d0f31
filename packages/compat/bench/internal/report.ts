// The side-by-side benchmark's figures: medians per operator, their ratio, the target each
// ratio is held to (the project's performance targets), and each operator's spread over the
// rounds (a verdict on medians whose rounds overlap can change from run to run), as rows and as a
// printed table. Where the floor operator was measured too (floor/operator.ts: the same requests,
// watch events and log lines with no framework), its median stands next to them.
import type { Peer } from "./processes.ts";

/** Measured values by `${peer}\0${figure}`, one per round. */
export type Samples = Map<string, ReadonlyArray<number>>;

/** The least and the largest value of a figure over the rounds. */
export interface Spread {
  readonly min: number;
  readonly max: number;
}

/** One line of the report. */
export interface Row {
  readonly figure: string;
  readonly unit: string;
  readonly ours: number;
  readonly kopf: number | null;
  /** The floor operator's median (`null`: not measured for this figure). */
  readonly floor: number | null;
  /** Our values' spread over the rounds (`null`: none measured). */
  readonly oursSpread: Spread | null;
  readonly kopfSpread: Spread | null;
  /** ours / kopf. */
  readonly ratio: number | null;
  /** The ratio (or, for `ownLimit` rows, our own value) must not exceed this. */
  readonly target: number | null;
  /** The target applies to our value alone, not to the ratio. */
  readonly ownLimit?: boolean;
  readonly met: boolean | null;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * A ratio rounded for the report: to two decimals, or to as many more (up to six) as it takes
 * for the written value to give the verdict `met` the exact one gets against `target` (0.2534 is
 * written 0.253, not 0.25, against a target of 0.25: it is not met). `target` is `null` for a
 * ratio that is not judged.
 */
const roundRatio = (ratio: number, target: number | null, met: boolean | null): number => {
  let digits = 2;
  while (target !== null && digits < 6 && round(ratio, digits) <= target !== met) digits += 1;
  return round(ratio, digits);
};

/** A figure's rounds summed up: their median (`NaN` for none) and their spread, sorted once. */
const summary = (values: ReadonlyArray<number> | undefined): { median: number; spread: Spread | null } => {
  const sorted = [...(values ?? [])].filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, spread: null };
  const mid = Math.floor(sorted.length / 2);
  return {
    median: sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2,
    spread: { min: round(sorted[0]!), max: round(sorted[sorted.length - 1]!) },
  };
};

/** The report's rows from the samples. */
export const rows = (
  samples: Samples,
  sizes: ReadonlyArray<number>,
  peers: ReadonlyArray<Peer>,
): ReadonlyArray<Row> => {
  const withKopf = peers.includes("kopf");
  const row = (figure: string, unit: string, key: string, target: number | null, ownLimit = false): Row => {
    const oursRounds = summary(samples.get(`ours\u0000${key}`));
    const kopfRounds = withKopf ? summary(samples.get(`kopf\u0000${key}`)) : null;
    const floor = summary(samples.get(`floor\u0000${key}`)).median;
    const ours = oursRounds.median;
    const kopf = kopfRounds?.median ?? null;
    const ratio = kopf === null || !(kopf > 0) || !Number.isFinite(ours) ? null : ours / kopf;
    const judged = ownLimit ? ours : ratio;
    const met = target === null || judged === null || !Number.isFinite(judged) ? null : judged <= target;
    return {
      figure,
      unit,
      ours: round(ours),
      kopf: kopf === null ? null : round(kopf),
      floor: Number.isFinite(floor) ? round(floor) : null,
      oursSpread: oursRounds.spread,
      kopfSpread: kopfRounds?.spread ?? null,
      ratio: ratio === null ? null : roundRatio(ratio, ownLimit ? null : target, met),
      target,
      ...(ownLimit ? { ownLimit } : {}),
      met,
    };
  };
  const largest = Math.max(...sizes);
  return [
    row("start (spawn → first object handled)", "s", "start", 1),
    row("RSS after start", "MiB", "rssAfterStart", 1.5),
    ...sizes.flatMap((n) => [
      row(`peak RSS, ${n} objects, create handler`, "MiB", `peakRss/create/${n}`, 1),
      row(`peak RSS, ${n} objects, with delete handler`, "MiB", `peakRss/create-delete/${n}`, 1),
    ]),
    row("CPU per object, create handler, first 1,000", "ms", `firstThousandCpu/create/${largest}`, 0.25),
    ...sizes.flatMap((n) => [
      row(`CPU per object, create handler, ${n}`, "ms", `createCpu/create/${n}`, 0.25),
      row(`CPU per object, create with finalizer, ${n}`, "ms", `createCpu/create-delete/${n}`, 0.25),
      row(`CPU per object, deletion, ${n}`, "ms", `deleteCpu/${n}`, 0.25),
    ]),
    row("writes per object, create handler", "writes", `writes/create/${largest}`, 2, true),
    row("writes per object, with finalizer (creation)", "writes", `writes/create-delete/${largest}`, 3, true),
    row(`create handler runs beyond one per object, ${largest}`, "runs", `reruns/create/${largest}`, 0, true),
    row(
      `create handler runs beyond one per object, with finalizer, ${largest}`,
      "runs",
      `reruns/create-delete/${largest}`,
      0,
      true,
    ),
    row("soak: RSS after soak / RSS after start", "×", "soakRssRatio", 1.5, true),
  ];
};

/** Whether the floor operator was measured for any row (its column is shown then). */
const hasFloor = (report: ReadonlyArray<Row>): boolean => report.some((r) => r.floor !== null);

/** The tables' header; `mark` follows "rounds" (": " in the printed table, ", " in the README's). */
const heading = (withFloor: boolean, mark: string): Array<string> => [
  "figure",
  "ours",
  "Kopf",
  ...(withFloor ? ["floor"] : []),
  "ours/Kopf",
  "target",
  "met",
  `rounds${mark} ours`,
  `rounds${mark} Kopf`,
];

/** A row's target: on the ratio (`≤ 0.25×`), or on our own value (`ours ≤ 2`). */
const targetText = (r: Row): string =>
  r.target === null ? "" : r.ownLimit === true ? `ours ≤ ${r.target}` : `≤ ${r.target}×`;

/** A spread as `min-max`, or one value when both read the same once written with `format`. */
const spreadText = (value: Spread | null, format: (value: number) => string = String): string => {
  if (value === null) return "—";
  const [min, max] = [format(value.min), format(value.max)];
  return min === max ? min : `${min}-${max}`;
};

/**
 * The rows as an aligned text table; the last two columns are the rounds' spreads. A `floor`
 * column follows Kopf's when any row has the floor operator's figure.
 */
export const table = (report: ReadonlyArray<Row>): string => {
  const withFloor = hasFloor(report);
  const floorCell = (r: Row): ReadonlyArray<string> =>
    withFloor ? [r.floor === null ? "—" : String(r.floor)] : [];
  const cells = [
    heading(withFloor, ":"),
    ...report.map((r) => [
      `${r.figure} (${r.unit})`,
      String(r.ours),
      r.kopf === null ? "—" : String(r.kopf),
      ...floorCell(r),
      r.ratio === null ? "—" : `${r.ratio}×`,
      targetText(r),
      r.met === null ? "" : r.met ? "yes" : "NO",
      spreadText(r.oursSpread),
      spreadText(r.kopfSpread),
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells
    .map((c) =>
      c
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
};

/** A figure as the README's table writes it (the rows hold it rounded to two decimals already). */
const figureText = (value: number | null): string =>
  value === null || !Number.isFinite(value) ? "—" : String(value);

/** Sizes with thousands separators, as the README writes them ("10000" → "10,000"). */
const grouped = (text: string): string =>
  text.replace(/\b\d{4,}\b/g, (digits) => Number(digits).toLocaleString("en-US"));

/** A row's label in the README's table; `soak` names the soak's cycles and objects. */
const readmeLabel = (row: Row, soak: { readonly cycles: number; readonly objects: number }): string => {
  const figure = grouped(row.figure);
  if (figure.startsWith("soak"))
    return `RSS after a soak of ${soak.cycles} × ${soak.objects} objects / after start`;
  if (figure.startsWith("create handler runs beyond one per object, with finalizer"))
    return "the same, with finalizer";
  if (figure.startsWith("create handler runs beyond")) return `${figure} objects`;
  if (figure.startsWith("writes")) return figure;
  return `${figure}, ${row.unit}`;
};

/**
 * The rows as the Markdown table of the README's performance section: memory in whole MiB, the
 * floor operator's column when it was measured, the rounds' spreads in the last two columns.
 *
 * @example
 * ```ts
 * Report.markdown(rows, { cycles: 20, objects: 200 }) // "| figure | ours | Kopf | … |\n| --- | …"
 * ```
 */
export const markdown = (
  report: ReadonlyArray<Row>,
  soak: { readonly cycles: number; readonly objects: number },
): string => {
  const withFloor = hasFloor(report);
  const cells = report.map((r) => {
    const whole = r.unit === "MiB";
    const text = (value: number | null) =>
      whole && value !== null && Number.isFinite(value) ? String(Math.round(value)) : figureText(value);
    return [
      readmeLabel(r, soak),
      text(r.ours),
      text(r.kopf),
      ...(withFloor ? [text(r.floor)] : []),
      r.ratio === null ? "—" : `${figureText(r.ratio)}×`,
      targetText(r),
      r.met === null ? "" : r.met ? "yes" : "no",
      spreadText(r.oursSpread, text),
      spreadText(r.kopfSpread, text),
    ];
  });
  const head = heading(withFloor, ",");
  const widths = head.map((_, i) => Math.max(...[head, ...cells].map((c) => c[i]!.length)));
  const line = (c: ReadonlyArray<string>) => `| ${c.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
};

// The CPU per object of a burst by segment of the objects handled: the first 250, the next 250,
// then doubling (500-1,000, 1,000-2,000, …) up to the burst's size. A fresh operator's first
// objects pay for V8 compiling and warming up the code they run through; the segments show where
// that cost lies and when the figure settles. start.bench.ts reads the operator's CPU as each bound
// is crossed. See docs/performance.md ("Where in the first thousand").

/** The operator's CPU (ms) when it had handled `handled` objects of the burst. */
export interface Reading {
  readonly handled: number;
  readonly cpuMs: number;
}

/** One segment: objects `from` (exclusive) to `to` (inclusive), and their CPU per object (ms). */
export interface Segment {
  readonly from: number;
  readonly to: number;
  readonly msPerObject: number;
}

/**
 * The bounds at which a burst of `n` objects is read: 250, 500, then doubling, and `n` itself.
 *
 * @example
 * bounds(3000) // [250, 500, 1000, 2000, 3000]
 */
export const bounds = (n: number): ReadonlyArray<number> => {
  const out: number[] = [];
  for (let bound = 250; bound < n; bound = bound < 500 ? bound + 250 : bound * 2) out.push(bound);
  if (n > 0) out.push(n);
  return out;
};

/**
 * The segments between consecutive readings, starting from `start` (the reading before the burst,
 * `handled` 0). Readings that handled no more objects than the one before are skipped.
 *
 * @example
 * segments({ handled: 0, cpuMs: 100 }, [{ handled: 250, cpuMs: 540 }, { handled: 500, cpuMs: 690 }])
 * // [{ from: 0, to: 250, msPerObject: 1.76 }, { from: 250, to: 500, msPerObject: 0.6 }]
 */
export const segments = (start: Reading, readings: ReadonlyArray<Reading>): ReadonlyArray<Segment> => {
  const out: Segment[] = [];
  let previous = start;
  for (const reading of readings) {
    if (reading.handled <= previous.handled) continue;
    out.push({
      from: previous.handled,
      to: reading.handled,
      msPerObject: (reading.cpuMs - previous.cpuMs) / (reading.handled - previous.handled),
    });
    previous = reading;
  }
  return out;
};

/**
 * Segments as printed: `1-250 1.76, 251-500 0.6` (ms of CPU per object).
 *
 * @example
 * format([{ from: 0, to: 250, msPerObject: 1.76 }]) // "1-250 1.76"
 */
export const format = (all: ReadonlyArray<Segment>): string =>
  all.map((s) => `${s.from + 1}-${s.to} ${Number(s.msPerObject.toFixed(2))}`).join(", ");

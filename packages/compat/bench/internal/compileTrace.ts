// The compiles V8 reports with `--trace-opt`, totalled by tier: how much of an operator's CPU goes
// to compiling its code rather than running it. `kopf run` compiles on its main thread (it runs
// with `--no-concurrent-recompilation`), so the times V8 prints are CPU time of the operator.
// See docs/performance.md ("How much of the CPU is compiling").

/** Compiles of one tier: how many, and their time in milliseconds. */
export interface TierTotals {
  readonly count: number;
  readonly ms: number;
}

/** Compiles by tier (Maglev, TurboFan; Node.js 22 names TurboFan `TURBOFAN`, 24 `TURBOFAN_JS`). */
export interface CompileTotals {
  readonly maglev: TierTotals;
  readonly turbofan: TierTotals;
}

export const NONE: CompileTotals = { maglev: { count: 0, ms: 0 }, turbofan: { count: 0, ms: 0 } };

/** `[completed compiling 0x… <JSFunction f (sfi = 0x…)> (target MAGLEV) OSR - took 0.001, 0.331, 0.009 ms]` */
const COMPILED =
  /\[completed compiling .*?\(target (MAGLEV|TURBOFAN(?:_JS)?)\)(?: OSR)? - took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/g;

/**
 * `totals` with the compiles reported in `text` (whole lines of an operator's output) added.
 * Lines of other kinds, and `completed optimizing` lines (no timing), add nothing.
 *
 * @example
 * add(NONE, "[completed compiling 0x1 <JSFunction f (sfi = 0x2)> (target MAGLEV) - took 0.001, 0.331, 0.009 ms]\n")
 * // { maglev: { count: 1, ms: 0.341 }, turbofan: { count: 0, ms: 0 } }
 */
export const add = (totals: CompileTotals, text: string): CompileTotals => {
  let { maglev, turbofan } = totals;
  for (const match of text.matchAll(COMPILED)) {
    const ms = Number(match[2]) + Number(match[3]) + Number(match[4]);
    if (match[1] === "MAGLEV") maglev = { count: maglev.count + 1, ms: maglev.ms + ms };
    else turbofan = { count: turbofan.count + 1, ms: turbofan.ms + ms };
  }
  return { maglev, turbofan };
};

/** Milliseconds of all tiers' compiles. */
export const msOf = (totals: CompileTotals): number => totals.maglev.ms + totals.turbofan.ms;

/** The compiles between two readings of the totals. */
export const since = (before: CompileTotals, after: CompileTotals): CompileTotals => ({
  maglev: { count: after.maglev.count - before.maglev.count, ms: after.maglev.ms - before.maglev.ms },
  turbofan: {
    count: after.turbofan.count - before.turbofan.count,
    ms: after.turbofan.ms - before.turbofan.ms,
  },
});

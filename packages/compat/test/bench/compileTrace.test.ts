// Covers the benchmark's reading of V8's `--trace-opt` lines: compiles totalled by tier with the
// three phases' times, OSR compiles counted, lines without timing or of other kinds ignored; and
// that the Node.js running the tests prints what it reads.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import * as CompileTrace from "../../bench/internal/compileTrace.ts";

const line = (tier: string, took: string, osr = false) =>
  `[completed compiling 0x3f747a43b091 <JSFunction f (sfi = 0x3f747a4377c9)> (target ${tier})${osr ? " OSR" : ""} - took ${took} ms]\n`;

describe("CompileTrace.add", () => {
  it.each<{ name: string; text: string; expected: CompileTrace.CompileTotals }>([
    { name: "nothing", text: "", expected: CompileTrace.NONE },
    {
      name: "a Maglev compile (Node.js 24)",
      text: line("MAGLEV", "0.001, 0.331, 0.009"),
      expected: { maglev: { count: 1, ms: 0.341 }, turbofan: { count: 0, ms: 0 } },
    },
    {
      name: "TurboFan as Node.js 24 and as Node.js 20 and 22 name it, one of them OSR",
      text: line("TURBOFAN_JS", "0.025, 3.932, 0.026") + line("TURBOFAN", "0.033, 9.706, 0.022", true),
      expected: { maglev: { count: 0, ms: 0 }, turbofan: { count: 2, ms: 13.744 } },
    },
    {
      name: "the untimed line that follows a compile, marking lines, log lines",
      text:
        "[completed optimizing 0x0de15e1e6709 <JSFunction f (sfi = 0xde15e1e3359)> (target TURBOFAN)]\n" +
        "[marking 0x336c02c7bde9 <JSFunction (sfi = 0x3065dbcce5a9)> for optimization to MAGLEV, ConcurrencyMode::kConcurrent, reason: hot and stable]\n" +
        "[2026-12-04 12:46:52,465] kopf.objects [INFO    ] [ns/completed compiling] Creation is processed: 1 succeeded; 0 failed.\n",
      expected: CompileTrace.NONE,
    },
    {
      name: "several on one chunk, between other lines",
      text: `${line("MAGLEV", "0, 0.5, 0")}other\n${line("MAGLEV", "0.001, 0.25, 0.004")}${line("TURBOFAN_JS", "0.01, 2, 0.04")}`,
      expected: { maglev: { count: 2, ms: 0.755 }, turbofan: { count: 1, ms: 2.05 } },
    },
  ])("$name", ({ text, expected }) => {
    const totals = CompileTrace.add(CompileTrace.NONE, text);
    expect(totals.maglev.count).toBe(expected.maglev.count);
    expect(totals.turbofan.count).toBe(expected.turbofan.count);
    expect(totals.maglev.ms).toBeCloseTo(expected.maglev.ms, 9);
    expect(totals.turbofan.ms).toBeCloseTo(expected.turbofan.ms, 9);
  });

  it("adds to what it was given, and `since` takes the difference", () => {
    const first = CompileTrace.add(CompileTrace.NONE, line("MAGLEV", "0, 1, 0"));
    const both = CompileTrace.add(first, line("TURBOFAN_JS", "0, 4, 0") + line("MAGLEV", "0, 2, 0"));
    expect(both).toEqual({ maglev: { count: 2, ms: 3 }, turbofan: { count: 1, ms: 4 } });
    expect(CompileTrace.since(first, both)).toEqual({
      maglev: { count: 1, ms: 2 },
      turbofan: { count: 1, ms: 4 },
    });
  });

  it("reads what this Node.js prints with --trace-opt", () => {
    // A hot function and a hot loop: optimized by TurboFan on every supported Node.js.
    const program = "function f(a){return a.x+1} let s=0; for(let i=0;i<3e6;i++) s+=f({x:i}); console.log(s)";
    const run = spawnSync(process.execPath, ["--trace-opt", "-e", program], { encoding: "utf8" });
    expect(run.status).toBe(0);
    const totals = CompileTrace.add(CompileTrace.NONE, run.stdout);
    expect(totals.turbofan.count).toBeGreaterThan(0);
    expect(totals.turbofan.ms).toBeGreaterThan(0);
  });
});

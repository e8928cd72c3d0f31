// The start phase of the side-by-side benchmark (peer.bench.ts) for this port alone, cheap enough
// to repeat while working on start-up memory: the same emulator over HTTPS, the same trivial
// create handler, the same operator command and the same measurement (spawn → first object
// handled; RSS one second after that, from /proc), plus what the RSS is made of
// (/proc/PID/smaps_rollup: anonymous memory against pages of files such as the node binary) and
// the CPU the operator used until then. No Python Kopf; take the figures to compare with Kopf's
// from a peer run.
//
// BENCH_START_CLIS (comma-separated, default the bundle `pnpm build` makes) names the variants to
// compare: each an entry module, optionally with Node.js options after a `|`
// (`dist/bundle/main.js|--no-concurrent-recompilation`); each round runs every one of them once,
// the order alternating between rounds, so that two builds or two sets of flags are measured A/B
// under the same load. BENCH_ROUNDS (5).
// With BENCH_START_OBJECTS=N, N more objects are created after that reading, and the CPU per
// object while the operator handles them (as the side-by-side run measures it while creating), the
// objects handled per second of wall time (the client creating them meanwhile) and the peak RSS
// are reported too: for changes that trade CPU for memory or throughput. The CPU per object is also
// given by segment of those objects (1-250, 251-500, 501-1,000, then doubling; internal/segments.ts):
// where a fresh operator's warming up lies. The page cache is dropped first when permitted, as in
// peer.bench.ts (internal/pageCache.ts).
// With BENCH_START_API_LATENCY_MS=M as well, the emulator answers the operator's patches M ms later
// while it handles those N objects (its control surface): an API server that far away, where the
// objects handled per second depend on how many cycles the operator keeps in flight.
// With BENCH_START_FLOOR=1 the floor operator (floor/operator.ts) is measured as one more variant:
// the same requests, watch events, JSON and log lines with none of a framework, so the CPU per
// object of the others can be read against what no operator on Node.js avoids.
// With BENCH_START_HANDLERS=create-delete the operators get a delete handler too, so every object
// gets the finalizer first (the side-by-side run's second variant; the floor operator has no such
// variant). The default is `create`.
// With BENCH_START_DELETE=1 as well (it needs BENCH_START_HANDLERS=create-delete and
// BENCH_START_OBJECTS), the N objects are deleted once their creation's writes have settled, and
// the CPU per object of their deletion is reported, measured as the side-by-side run measures it
// (until every object is gone and the writes have been quiet for 500 ms).
// With BENCH_TRACE_OPT=1 every operator also runs with V8's `--trace-opt`, and the time V8 spent
// compiling (Maglev, TurboFan) is reported per object of the N: how much of the CPU per object is
// compiling the per-object code rather than running it (internal/compileTrace.ts).
//
//   node --conditions=@kopf/source packages/compat/bench/start.bench.ts
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as CompileTrace from "./internal/compileTrace.ts";
import * as PageCache from "./internal/pageCache.ts";
import { FLOOR_OPERATOR, nodeArgsOf, ourNodeArgs } from "./internal/processes.ts";
import { cpuMs, load, peakRssMiB, rssMiB } from "./internal/procfs.ts";
import * as Segments from "./internal/segments.ts";
import * as Session from "./internal/session.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HANDLERS = process.env.BENCH_START_HANDLERS ?? "create";
if (HANDLERS !== "create" && HANDLERS !== "create-delete")
  throw new Error(`BENCH_START_HANDLERS must be create or create-delete, not ${JSON.stringify(HANDLERS)}.`);
if (HANDLERS !== "create" && process.env.BENCH_START_FLOOR === "1")
  throw new Error(
    "The floor operator has only the create handler: BENCH_START_FLOOR=1 needs BENCH_START_HANDLERS=create.",
  );
/** One operator to measure: its entry module and Node.js options, and how the report names it. */
interface Variant {
  readonly label: string;
  readonly cli: string;
  readonly nodeArgs: ReadonlyArray<string> | undefined;
}
// BENCH_START_FLOOR=1 measures the floor operator after the variants.
const VARIANTS: ReadonlyArray<Variant> = [
  process.env.BENCH_START_CLIS ?? join(root, "packages/cli/dist/bundle/main.js"),
  ...(process.env.BENCH_START_FLOOR === "1" ? [FLOOR_OPERATOR] : []),
]
  .join(",")
  .split(",")
  .map((text) => {
    const [path = "", flags] = text.split("|");
    const cli = resolve(path);
    return flags === undefined
      ? { label: cli, cli, nodeArgs: undefined }
      : { label: `${cli}|${flags}`, cli, nodeArgs: nodeArgsOf(flags) };
  });
const OBJECTS = Number(process.env.BENCH_START_OBJECTS ?? 0);
const DELETE = process.env.BENCH_START_DELETE === "1";
if (DELETE && (HANDLERS !== "create-delete" || OBJECTS === 0))
  throw new Error("BENCH_START_DELETE=1 needs BENCH_START_HANDLERS=create-delete and BENCH_START_OBJECTS.");
const TRACE_OPT = process.env.BENCH_TRACE_OPT === "1";
const API_LATENCY_MS = Number(process.env.BENCH_START_API_LATENCY_MS ?? 0);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A /proc/PID/smaps_rollup field, in MiB. */
const rollupMiB = (pid: number, key: string): number => {
  const line = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${key}:`));
  return line === undefined ? Number.NaN : Number(line.replace(/[^0-9]/g, "")) / 1024;
};

interface Sample {
  readonly start: number;
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly cpu: number;
  /** CPU per object (ms) over BENCH_START_OBJECTS more objects; NaN without them. */
  readonly cpuPerObject: number;
  /** The same by segment of the N objects (none without them). */
  readonly segments: ReadonlyArray<Segments.Segment>;
  /** Objects handled per second of wall time over them (the creating client runs meanwhile). */
  readonly perSecond: number;
  readonly peak: number;
  /** V8's compiles while the N objects were handled (with BENCH_TRACE_OPT=1). */
  readonly compiles: CompileTrace.CompileTotals;
  /** CPU per object (ms) of their deletion (with BENCH_START_DELETE=1), and V8's compiles meanwhile. */
  readonly deletion?:
    | { readonly cpuPerObject: number; readonly compiles: CompileTrace.CompileTotals }
    | undefined;
}

const once = ({ cli, nodeArgs }: Variant): Promise<Sample> =>
  Session.withOperator(
    {
      root,
      peer: "ours",
      python: undefined,
      handlers: join(here, "fixtures", HANDLERS),
      cli,
      nodeArgs: [...(nodeArgs ?? ourNodeArgs()), ...(TRACE_OPT ? ["--trace-opt"] : [])],
    },
    async (op, client, start) => {
      await sleep(1000);
      const rss = rollupMiB(op.pid, "Rss");
      const anon = rollupMiB(op.pid, "Anonymous");
      const sample = { start, rss: rssMiB(op.pid), anon, file: rss - anon, cpu: cpuMs(op.pid) };
      if (OBJECTS === 0)
        return {
          ...sample,
          cpuPerObject: Number.NaN,
          segments: [],
          perSecond: Number.NaN,
          peak: Number.NaN,
          compiles: CompileTrace.NONE,
        };
      if (API_LATENCY_MS > 0) await client.delay("patch", API_LATENCY_MS);
      const writes = DELETE ? await client.countWrites() : undefined;
      const compilesBefore = op.compiles();
      const before = cpuMs(op.pid);
      const startedAt = performance.now();
      const names = Array.from({ length: OBJECTS }, (_, i) => `obj-${i}`);
      const creating = client.create(names);
      const readings: Segments.Reading[] = [];
      try {
        for (const bound of Segments.bounds(OBJECTS)) {
          await op.waitFor("created", 1 + bound, 120_000 + OBJECTS * 50);
          readings.push({ handled: op.count("created") - 1, cpuMs: cpuMs(op.pid) });
        }
      } finally {
        await creating;
      }
      const created = {
        ...sample,
        cpuPerObject: (cpuMs(op.pid) - before) / OBJECTS,
        segments: Segments.segments({ handled: 0, cpuMs: before }, readings),
        perSecond: OBJECTS / ((performance.now() - startedAt) / 1000),
        compiles: CompileTrace.since(compilesBefore, op.compiles()),
      };
      if (writes === undefined) return { ...created, peak: peakRssMiB(op.pid) };
      const timeout = 120_000 + OBJECTS * 50;
      await writes.settleCreated(OBJECTS, 500, timeout);
      const compilesBeforeDeletion = op.compiles();
      const beforeDeletion = cpuMs(op.pid);
      await client.delete(names);
      await op.waitFor("deleted", OBJECTS, timeout);
      await writes.settleDeleted(OBJECTS, 500, timeout);
      const deletion = {
        cpuPerObject: (cpuMs(op.pid) - beforeDeletion) / OBJECTS,
        compiles: CompileTrace.since(compilesBeforeDeletion, op.compiles()),
      };
      await writes.stop();
      return { ...created, peak: peakRssMiB(op.pid), deletion };
    },
  );

/** The compiles per object, as printed: ms per object, then counts. */
const compiling = (c: CompileTrace.CompileTotals): string =>
  `compiling ${(CompileTrace.msOf(c) / OBJECTS).toFixed(3)} ms per object ` +
  `(Maglev ${c.maglev.count} compiles, ${c.maglev.ms.toFixed(0)} ms; TurboFan ${c.turbofan.count}, ` +
  `${c.turbofan.ms.toFixed(0)} ms), `;

const samples = new Map<string, Sample[]>(VARIANTS.map((variant) => [variant.label, []]));
console.log(PageCache.settle());
console.log(`load before: ${JSON.stringify(load(loadavg(), cpus().length))}`);
if (API_LATENCY_MS > 0 && OBJECTS > 0) console.log(`the emulator answers patches ${API_LATENCY_MS} ms late`);
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
    const s = await once(variant);
    samples.get(variant.label)?.push(s);
    console.log(
      `round ${round + 1}/${ROUNDS} ${variant.label}: start ${s.start.toFixed(2)} s, RSS ${s.rss.toFixed(1)} MiB ` +
        `(anonymous ${s.anon.toFixed(1)}, files ${s.file.toFixed(1)}), CPU ${s.cpu.toFixed(0)} ms, ` +
        (OBJECTS > 0
          ? `then ${s.cpuPerObject.toFixed(3)} ms CPU per object (by segment ${Segments.format(s.segments)}), ` +
            `${s.perSecond.toFixed(0)} objects/s, ` +
            `peak RSS ${s.peak.toFixed(1)}, ` +
            (TRACE_OPT ? compiling(s.compiles) : "") +
            (s.deletion === undefined
              ? ""
              : `deletion ${s.deletion.cpuPerObject.toFixed(3)} ms CPU per object, ` +
                (TRACE_OPT ? compiling(s.deletion.compiles) : ""))
          : "") +
        `load ${loadavg()[0]?.toFixed(2)}`,
    );
  }
}
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
/** Each segment's median over the rounds, labelled by its bounds. */
const segmentMedians = (all: ReadonlyArray<Sample>): string =>
  Segments.format(
    Segments.bounds(OBJECTS).map((to, i, bounds) => ({
      from: bounds[i - 1] ?? 0,
      to,
      msPerObject: median(
        all.flatMap((s) => (s.segments[i] === undefined ? [] : [s.segments[i].msPerObject])),
      ),
    })),
  );
console.log(`\nmedians of ${ROUNDS} rounds (load after: ${JSON.stringify(load(loadavg(), cpus().length))})`);
for (const [label, all] of samples) {
  const m = (f: (s: Sample) => number) => median(all.map(f)).toFixed(1);
  console.log(
    `${label}: start ${m((s) => s.start)} s, RSS ${m((s) => s.rss)} MiB (anonymous ${m((s) => s.anon)}, ` +
      `files ${m((s) => s.file)}), CPU ${m((s) => s.cpu)} ms` +
      (OBJECTS > 0
        ? `, then ${median(all.map((s) => s.cpuPerObject)).toFixed(3)} ms CPU per object (least ` +
          `${Math.min(...all.map((s) => s.cpuPerObject)).toFixed(3)}; by segment ${segmentMedians(all)}), ` +
          `${m((s) => s.perSecond)} objects/s, ` +
          `peak RSS ${m((s) => s.peak)} MiB` +
          (TRACE_OPT
            ? `, compiling ${median(all.map((s) => CompileTrace.msOf(s.compiles) / OBJECTS)).toFixed(3)} ms per object`
            : "") +
          (DELETE
            ? `; deletion ${median(all.map((s) => s.deletion?.cpuPerObject ?? Number.NaN)).toFixed(3)} ms CPU per ` +
              `object (least ${Math.min(...all.map((s) => s.deletion?.cpuPerObject ?? Number.NaN)).toFixed(3)})`
            : "")
        : ""),
  );
}

// Side-by-side benchmark of this port and Python Kopf (not a timed test; `pnpm bench` runs it).
// Our operator runs as installed, from the bundle `pnpm build` makes (BENCH_OPERATOR=modules: the
// packages' unbundled builds; BENCH_OPERATOR=source: the TypeScript sources). Both operators run the same trivial handlers (fixtures/create.*,
// fixtures/create-delete.*; ours in JavaScript, as an operator's image runs its handlers, so that
// no run depends on whether an earlier one left a TypeScript file's stripped copy in Node.js's
// compile cache) against a fresh emulator over HTTPS per run, one operator at a time, the order
// alternating between rounds, and are measured from outside through /proc (CPU, RSS, peak RSS):
//   - start: from spawning the operator to its first object being handled (the object exists
//     before the operator starts);
//   - RSS one second after that;
//   - per size (BENCH_SIZES, default 1000,5000,10000) and variant (create handler; create and
//     delete handlers, so every object gets the finalizer): CPU per object while creating (also
//     for the first thousand alone), CPU per object while deleting, peak RSS, the writes each
//     object received (MODIFIED watch events), and how often the create handler ran beyond once
//     per object (its "Creation is processed" lines; re-runs of a handler whose results were
//     stored, which must be none);
//   - the floor operator (floor/operator.ts: the same requests, watch events and log lines as
//     both, with no framework) after them in each round, for the create handler only: its CPU
//     per object stands next to theirs (BENCH_FLOOR=0 leaves it out);
//   - a soak: BENCH_SOAK_CYCLES (20) cycles of creating and deleting BENCH_SOAK_OBJECTS (200)
//     objects, then the RSS with all of them gone, against the RSS after start.
// Medians over BENCH_ROUNDS (3) rounds. Python Kopf comes from the compatibility suite's
// virtual environment; when it cannot be installed only this port is measured, and said so.
// Before the first operator starts, the page cache is dropped once when permitted (see
// internal/pageCache.ts; BENCH_DROP_CACHES=0 keeps it), so that neither operator's RSS counts
// files as the kernel cached them when they were just written.
// Prints a table with the ratios and writes .reports/bench/peer.json (or $BENCH_OUT), and the
// same rows as the README's Markdown table next to it (peer.md).
//
//   node --conditions=@kopf/source packages/compat/bench/peer.bench.ts
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PythonKopf } from "../src/index.ts";
import type * as Client from "./internal/client.ts";
import * as PageCache from "./internal/pageCache.ts";
import { type Child, FLOOR_OPERATOR, type Peer } from "./internal/processes.ts";
import { cpuMs, load, peakRssMiB, rssMiB } from "./internal/procfs.ts";
import * as Report from "./internal/report.ts";
import * as Session from "./internal/session.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const SIZES = (process.env.BENCH_SIZES ?? "1000,5000,10000").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SOAK_CYCLES = Number(process.env.BENCH_SOAK_CYCLES ?? 20);
const SOAK_OBJECTS = Number(process.env.BENCH_SOAK_OBJECTS ?? 200);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const timeoutFor = (n: number) => 120_000 + n * 50;

type Variant = "create" | "create-delete";

/** An operator measured: one of the two peers, or the floor operator. */
type Measured = Peer | "floor";
const WITH_FLOOR = process.env.BENCH_FLOOR !== "0";

/** One operator's run against a fresh emulator; `body` gets the operator, the client, the start. */
const withOperator = <A>(
  peer: Measured,
  python: string | undefined,
  variant: Variant,
  body: (op: Child, client: Client.BenchClient, started: number) => Promise<A>,
): Promise<A> =>
  Session.withOperator(
    {
      root,
      peer: peer === "floor" ? "ours" : peer,
      python,
      handlers: join(here, "fixtures", variant),
      ...(peer === "floor" ? { cli: FLOOR_OPERATOR, nodeArgs: [] } : {}),
    },
    body,
  );

/** Creation (and, with a delete handler, deletion) of `n` objects. */
const sizeRun = (peer: Measured, python: string | undefined, variant: Variant, n: number) =>
  withOperator(peer, python, variant, async (op, client, start) => {
    await sleep(1000);
    const rssAfterStart = rssMiB(op.pid);
    const writes = await client.countWrites();
    const first = Math.min(1000, n);
    const cpu0 = cpuMs(op.pid);
    let cpuFirst = Number.NaN;
    const creating = client.create(names("obj", n));
    await op.waitFor("created", 1 + first, timeoutFor(n));
    cpuFirst = cpuMs(op.pid);
    await creating;
    await op.waitFor("created", 1 + n, timeoutFor(n));
    // "Creation is processed" is logged before the cycle's patch: wait for the writes themselves.
    await writes.settleCreated(n, 500, timeoutFor(n));
    const cpu1 = cpuMs(op.pid);
    const writesPerObject = [...writes.counts().values()].reduce((a, b) => a + b, 0) / n;
    let deleteCpuPerObject = Number.NaN;
    if (variant === "create-delete") {
      const cpu2 = cpuMs(op.pid);
      await client.delete(names("obj", n));
      await op.waitFor("deleted", n, timeoutFor(n));
      await writes.settleDeleted(n, 500, timeoutFor(n));
      deleteCpuPerObject = (cpuMs(op.pid) - cpu2) / n;
    }
    // Handlers run again only after the consistency timeout (5 s): give them that long.
    // Not for the floor operator, whose re-runs are not recorded.
    if (variant === "create" && peer !== "floor") await sleep(6000);
    const reruns = op.count("created") - (1 + n);
    await writes.stop();
    return {
      start,
      reruns,
      rssAfterStart,
      createCpuPerObject: (cpu1 - cpu0) / n,
      firstThousandCpuPerObject: (cpuFirst - cpu0) / first,
      deleteCpuPerObject,
      peakRss: peakRssMiB(op.pid),
      writesPerObject,
    };
  });

/** Cycles of creating and deleting objects; the RSS after all are gone, against after start. */
const soakRun = (peer: Peer, python: string | undefined) =>
  withOperator(peer, python, "create-delete", async (op, client) => {
    await sleep(1000);
    const rssAfterStart = rssMiB(op.pid);
    for (let cycle = 0; cycle < SOAK_CYCLES; cycle++) {
      const batch = names(`soak${cycle}`, SOAK_OBJECTS);
      await client.create(batch);
      await op.waitFor("created", 1 + (cycle + 1) * SOAK_OBJECTS, timeoutFor(SOAK_OBJECTS));
      await client.delete(batch);
      await op.waitFor("deleted", (cycle + 1) * SOAK_OBJECTS, timeoutFor(SOAK_OBJECTS));
    }
    await sleep(3000);
    return { rssAfterStart, rssAfterSoak: rssMiB(op.pid), peakRss: peakRssMiB(op.pid) };
  });

const pythonKopf = async (): Promise<{ python?: string; why?: string }> => {
  try {
    return { python: await PythonKopf.ensure(root) };
  } catch (error) {
    return { why: String(error instanceof Error ? error.message : error).split("\n")[0] ?? "" };
  }
};

const { python, why } = await pythonKopf();
// After installing Python Kopf (which writes files), before any operator runs.
const pageCache = PageCache.settle();
console.log(pageCache);
const peers: ReadonlyArray<Peer> = python === undefined ? ["ours"] : ["ours", "kopf"];
if (python === undefined) console.log(`Python Kopf is not available (${why}); measuring this port alone.`);
const loadBefore = load(loadavg(), cpus().length);
const samples: Report.Samples = new Map();
const record = (peer: Measured, figure: string, value: number) => {
  const key = `${peer}\u0000${figure}`;
  samples.set(key, [...(samples.get(key) ?? []), value]);
};
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? peers : [...peers].reverse();
  for (const variant of ["create", "create-delete"] as const) {
    for (const n of SIZES) {
      for (const peer of order) {
        console.log(`round ${round + 1}/${ROUNDS}: ${peer}, ${variant}, ${n} objects`);
        const r = await sizeRun(peer, python, variant, n);
        record(peer, "start", r.start);
        record(peer, "rssAfterStart", r.rssAfterStart);
        record(peer, `peakRss/${variant}/${n}`, r.peakRss);
        record(peer, `createCpu/${variant}/${n}`, r.createCpuPerObject);
        record(peer, `firstThousandCpu/${variant}/${n}`, r.firstThousandCpuPerObject);
        record(peer, `writes/${variant}/${n}`, r.writesPerObject);
        record(peer, `reruns/${variant}/${n}`, r.reruns);
        if (variant === "create-delete") record(peer, `deleteCpu/${n}`, r.deleteCpuPerObject);
      }
      if (WITH_FLOOR && variant === "create") {
        console.log(`round ${round + 1}/${ROUNDS}: floor, ${variant}, ${n} objects`);
        const r = await sizeRun("floor", undefined, variant, n);
        record("floor", `createCpu/${variant}/${n}`, r.createCpuPerObject);
        record("floor", `firstThousandCpu/${variant}/${n}`, r.firstThousandCpuPerObject);
      }
    }
  }
  for (const peer of order) {
    console.log(`round ${round + 1}/${ROUNDS}: ${peer}, soak`);
    const s = await soakRun(peer, python);
    record(peer, "soakRssRatio", s.rssAfterSoak / s.rssAfterStart);
    record(peer, "soakRssAfter", s.rssAfterSoak);
  }
}
const rows = Report.rows(samples, SIZES, peers);
console.log(
  `\nThis port and Python Kopf ${PythonKopf.KOPF_VERSION} side by side (medians of ${ROUNDS} rounds)`,
);
console.log(Report.table(rows));
const out = process.env.BENCH_OUT ?? join(root, ".reports/bench/peer.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      kopf: python === undefined ? null : PythonKopf.KOPF_VERSION,
      operator: process.env.BENCH_OPERATOR ?? "bundle",
      rounds: ROUNDS,
      sizes: SIZES,
      soak: { cycles: SOAK_CYCLES, objects: SOAK_OBJECTS },
      load: { before: loadBefore, after: load(loadavg(), cpus().length) },
      pageCache,
      rows,
      samples: Object.fromEntries(samples),
    },
    null,
    2,
  )}\n`,
);
// The README's table of the same rows, next to the JSON.
const table = out.replace(/\.json$/, "") + ".md";
writeFileSync(table, `${Report.markdown(rows, { cycles: SOAK_CYCLES, objects: SOAK_OBJECTS })}\n`);
console.log(`written to ${out} and ${table}`);

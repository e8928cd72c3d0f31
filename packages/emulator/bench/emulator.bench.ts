// Benchmark of the emulator over HTTPS (not a timed test): writes per CPU-second of the emulator
// process — creates, merge patches, JSON patches, status patches and an operator-like mix (create,
// then a merge patch and a status patch of the same object) — with N watchers attached to the
// written resource, each write's events delivered to all of them before the phase's CPU is read.
// The emulator runs in its own process (its CPU time, TLS and GC threads included, is what counts;
// the machine may be shared), the clients in this one over keep-alive connections, up to 32 of
// them as the operator's client pools. Each figure is checked against the target of 10,000 writes
// per CPU-second. Two reference rows show the floor: a plain node:https server in the emulator's
// process with the same certificate, and the emulator's cheapest request (GET /healthz). Then the
// same workloads run in-process, straight to `emulator.handle` (internal/inProcess.ts): the API
// machinery's CPU per write without sockets, steady enough between runs to compare two versions
// of the emulator's code, which the HTTPS figures on a shared machine are not. Prints a table and
// writes JSON to .reports/bench/emulator.json (or $BENCH_OUT).
//
//   node --conditions=@kopf/source --expose-gc packages/emulator/bench/emulator.bench.ts
//   BENCH_WRITES (per phase, default 6000, after an unmeasured round of BENCH_WARM_UP_WRITES,
//   default 1500), BENCH_WATCHERS (default 4), BENCH_CONNECTIONS
//   (default 32), BENCH_MEMORY_OBJECTS (default 20000), BENCH_IN_PROCESS_ROUNDS (default 3, 0
//   leaves the in-process part out); BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the
//   emulator process there.
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { cpus, loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { type InProcessPhase, runInProcess } from "./internal/inProcess.ts";
import { type FromServer, serve, type ToServer } from "./internal/server.ts";
import { BASE, createPatched, installCrd, runSteps, type Workload, workloads } from "./internal/workloads.ts";

const WRITES = Number(process.env.BENCH_WRITES ?? 6000);
const WARM_UP_WRITES = Number(process.env.BENCH_WARM_UP_WRITES ?? 1500);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MEMORY_OBJECTS = Number(process.env.BENCH_MEMORY_OBJECTS ?? 20000);
const TARGET = 10_000;
const IN_PROCESS_ROUNDS = Number(process.env.BENCH_IN_PROCESS_ROUNDS ?? 3);

// ---- the clients (this process) ---------------------------------------------------------------

interface Phase {
  readonly name: string;
  readonly reference: boolean;
  readonly writes: number;
  readonly failed: number;
  readonly wallPerSecond: number;
  readonly cpuMs: number;
  /** The share of the CPU time spent in the kernel (sockets, TLS records written). */
  readonly systemShare: number;
  readonly microsPerWrite: number;
  readonly writesPerCpuSecond: number;
  readonly watchEvents: number;
  readonly watchEventsExpected: number;
}

const drive = async () => {
  const profileDir = process.env.BENCH_CPU_PROF;
  const child: ChildProcess = fork(new URL(import.meta.url), ["--serve"], {
    execArgv: [
      ...process.execArgv,
      ...(profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${resolve(profileDir)}`]),
    ],
  });
  const replies: Array<(message: FromServer) => void> = [];
  let ready: (target: { url: string; caPem: string; plainUrl: string }) => void = () => undefined;
  const started = new Promise<{ url: string; caPem: string; plainUrl: string }>((done) => (ready = done));
  child.on("message", (message: FromServer) => {
    if ("ready" in message) ready(message.ready);
    else replies.shift()?.(message);
  });
  const ask = (message: ToServer) =>
    new Promise<FromServer>((done) => {
      replies.push(done);
      child.send(message);
    });
  const serverCpu = async () => {
    const reply = await ask({ cpu: true });
    return "cpu" in reply ? reply.cpu : { user: 0, system: 0 };
  };
  const { url, caPem, plainUrl } = await started;

  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca: caPem });
  const send = (method: string, path: string, body?: unknown, contentType = "application/json") =>
    new Promise<number>((done) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        new URL(path, url),
        {
          method,
          agent,
          headers: {
            authorization: "Bearer bench",
            ...(payload === undefined
              ? {}
              : { "content-type": contentType, "content-length": Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => done(res.statusCode ?? 0));
        },
      );
      req.on("error", () => done(0));
      req.end(payload);
    });

  await installCrd(send, "");

  // The watchers, attached before the first object (so no initial ADDED events).
  let received = 0;
  /** Events the watchers are owed so far (each successful write owes one to each watcher). */
  let owed = 0;
  const watchers = await Promise.all(
    Array.from(
      { length: WATCHERS },
      () =>
        new Promise<import("node:http").ClientRequest>((attached) => {
          const req = request(
            new URL(`${BASE}?watch=true&allowWatchBookmarks=true`, url),
            { agent: new Agent({ ca: caPem }), headers: { authorization: "Bearer bench" } },
            (res) => {
              res.setEncoding("utf8");
              res.on("data", (chunk: string) => {
                for (let at = chunk.indexOf("\n"); at !== -1; at = chunk.indexOf("\n", at + 1)) received++;
              });
              attached(req);
            },
          );
          req.on("error", () => undefined);
          req.end();
        }),
    ),
  );
  const delivered = async (expected: number) => {
    for (const until = performance.now() + 30_000; received < expected && performance.now() < until; )
      await new Promise((done) => setTimeout(done, 5));
  };

  // The objects the patch phases write, PER_CLIENT for each client loop.
  owed += (await createPatched(send, CONNECTIONS)) * WATCHERS;
  const all = workloads(send, [
    {
      name: "reference: plain node:https, GET",
      writesPerStep: 1,
      reference: true,
      step: async () => (await send("GET", plainUrl)) === 200,
    },
  ]);

  /** Makes `writes` writes of a workload from CONNECTIONS concurrent loops; the emulator's CPU for them. */
  const phase = async (workload: Workload, round: string, writes: number): Promise<Phase> => {
    await delivered(owed);
    const eventsBefore = received;
    const cpuBefore = await serverCpu();
    const startedAt = performance.now();
    const { ok, failed } = await runSteps(
      workload,
      round,
      Math.ceil(writes / workload.writesPerStep),
      CONNECTIONS,
    );
    const wallSeconds = (performance.now() - startedAt) / 1000;
    const made = (ok + failed) * workload.writesPerStep;
    if (workload.reference !== true) owed += ok * workload.writesPerStep * WATCHERS;
    const expected = owed;
    await delivered(expected);
    const cpuAfter = await serverCpu();
    const cpuMicros = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system;
    return {
      name: workload.name,
      reference: workload.reference === true,
      writes: made,
      failed,
      wallPerSecond: Math.round(made / wallSeconds),
      cpuMs: Math.round(cpuMicros / 1000),
      systemShare: Math.round((100 * (cpuAfter.system - cpuBefore.system)) / Math.max(1, cpuMicros)) / 100,
      microsPerWrite: Math.round(cpuMicros / Math.max(1, made)),
      writesPerCpuSecond: Math.round((made * 1e6) / Math.max(1, cpuMicros)),
      watchEvents: received - eventsBefore,
      watchEventsExpected: expected - eventsBefore,
    };
  };
  // An unmeasured warm-up round of every workload, so that JIT compilation does not count.
  for (const workload of all) await phase(workload, "w", WARM_UP_WRITES);
  const load = loadavg();
  const phases: Array<Phase> = [];
  for (const workload of all) phases.push(await phase(workload, "", WRITES));
  for (const watcher of watchers) watcher.destroy();
  const memoryReply = await ask({ memory: MEMORY_OBJECTS });
  const memory = "memory" in memoryReply ? memoryReply.memory : undefined;
  const loadAfter = loadavg();
  agent.destroy();
  child.send({ exit: true } satisfies ToServer);
  await new Promise((done) => child.once("exit", done));
  // The same workloads straight to emulator.handle, in this process (the HTTPS one has exited).
  const inProcess: ReadonlyArray<InProcessPhase> =
    IN_PROCESS_ROUNDS > 0
      ? await runInProcess({
          writes: WRITES,
          warmUpWrites: WARM_UP_WRITES,
          watchers: WATCHERS,
          loops: CONNECTIONS,
          rounds: IN_PROCESS_ROUNDS,
        })
      : [];

  const rows: Array<readonly [string, string, string, string]> = phases.map((p) => [
    p.name,
    `${p.writesPerCpuSecond} ${p.reference ? "requests" : "writes"}/CPU-s`,
    p.reference ? "" : p.writesPerCpuSecond >= TARGET ? "ok" : "BELOW",
    `${p.microsPerWrite} µs CPU/${p.reference ? "request" : "write"} (${Math.round(p.systemShare * 100)}% system); ` +
      `${p.writes} ${p.reference ? "requests" : "writes"} (${p.failed} failed steps), ${p.wallPerSecond}/s wall` +
      (p.reference ? "" : `; ${p.watchEvents}/${p.watchEventsExpected} watch events`),
  ]);
  const width = Math.max(...rows.map((row) => row[0].length));
  console.log(
    `\nemulator over HTTPS, ${CONNECTIONS} keep-alive connections, ${WATCHERS} watchers, ` +
      `${WRITES} writes per phase, ${cpus().length} CPUs, load ${load.map((l) => l.toFixed(2)).join(" ")}`,
  );
  console.log(`target: ${TARGET} writes per CPU-second of the emulator process\n`);
  for (const [name, value, verdict, detail] of rows)
    console.log(`${name.padEnd(width)}  ${value.padStart(20)}  ${verdict.padEnd(5)}  ${detail}`);
  if (memory !== undefined)
    console.log(
      `${"memory per stored object".padEnd(width)}  ${`${memory.bytesPerObject} B`.padStart(20)}         ` +
        `${memory.objects} configmaps${memory.gcExposed ? "" : " (no --expose-gc: rough)"}`,
    );
  if (inProcess.length > 0) {
    console.log(
      `\nin-process (emulator.handle, no sockets), the same workloads and watchers, ` +
        `least of ${IN_PROCESS_ROUNDS} rounds: the API machinery alone\n`,
    );
    for (const p of inProcess)
      console.log(
        `${p.name.padEnd(width)}  ${`${p.microsPerWrite} µs CPU/${p.reference ? "request" : "write"}`.padStart(20)}` +
          `         rounds ${p.roundsMicrosPerWrite.join(", ")} µs; ${p.failed} failed steps` +
          (p.reference ? "" : `; ${p.watchEvents}/${p.watchEventsExpected} watch events`),
      );
  }
  const out = resolve(process.env.BENCH_OUT ?? ".reports/bench/emulator.json");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        node: process.version,
        cpus: cpus().length,
        loadavg: { before: load, after: loadAfter },
        writesPerPhase: WRITES,
        connections: CONNECTIONS,
        watchers: WATCHERS,
        targetWritesPerCpuSecond: TARGET,
        phases,
        inProcess: { rounds: IN_PROCESS_ROUNDS, phases: inProcess },
        memory,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nwritten to ${out}`);
};

await (process.argv[2] === "--serve" ? serve() : drive());

// Benchmark of the emulator over HTTPS with keep-alive (not a timed test): requests per second for
// gets, merge patches and creates from 10 concurrent clients, watch events per second delivered to
// 10 watchers, and heap memory per stored object. The emulator runs on the main thread and the
// clients in a worker thread (as a separate operator process would). Prints a table and writes JSON
// to .reports/bench/emulator.json (or $BENCH_OUT).
//
//   node --conditions=@kopf/source --expose-gc packages/emulator/bench/emulator.bench.ts
//   (BENCH_DURATION_MS, BENCH_WATCH_EVENTS, BENCH_MEMORY_OBJECTS tune the phases)
import { mkdirSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { cpus } from "node:os";
import { dirname, resolve } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const CLIENTS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const WATCH_EVENTS = Number(process.env.BENCH_WATCH_EVENTS ?? 2000);
const MEMORY_OBJECTS = Number(process.env.BENCH_MEMORY_OBJECTS ?? 20000);
const PRELOADED = 100;

interface Target {
  readonly url: string;
  readonly caPem: string;
}

interface Rate {
  readonly requests: number;
  readonly failed: number;
  readonly perSecond: number;
}

// ---- the clients (worker thread) -------------------------------------------------------------

const clients = async ({ url, caPem }: Target) => {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS, ca: caPem });
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

  /** Runs `step` from CLIENTS concurrent loops for DURATION_MS. */
  const load = async (
    phase: string,
    step: (client: number, i: number) => Promise<number>,
    expected: number,
  ): Promise<Rate> => {
    parentPort?.postMessage({ mark: "start", phase });
    const started = performance.now();
    const deadline = started + DURATION_MS;
    let ok = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; performance.now() < deadline; i++) {
          if ((await step(client, i)) === expected) ok++;
          else failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    parentPort?.postMessage({ mark: "end", phase, count: ok + failed });
    return { requests: ok + failed, failed, perSecond: Math.round((ok + failed) / seconds) };
  };

  const base = "/api/v1/namespaces/default/configmaps";
  const configMap = (name: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name },
    data: { a: "b" },
  });
  for (let i = 0; i < PRELOADED; i++) await send("POST", base, configMap(`pre-${i}`));
  // A short unmeasured warm-up, so that JIT compilation does not count against the first phase.
  const warmUpUntil = performance.now() + Math.min(1000, DURATION_MS);
  for (let i = 0; performance.now() < warmUpUntil; i++) {
    await send("POST", base, configMap(`warm-${i}`));
    await send("GET", `${base}/warm-${i}`);
  }
  const creates = await load("creates", (client, i) => send("POST", base, configMap(`c${client}-${i}`)), 201);
  const gets = await load(
    "gets",
    (client, i) => send("GET", `${base}/pre-${(client * 7 + i) % PRELOADED}`),
    200,
  );
  const patches = await load(
    "patches",
    (client, i) =>
      send(
        "PATCH",
        `${base}/pre-${(client * 7 + i) % PRELOADED}`,
        { metadata: { labels: { n: String(i) } } },
        "application/merge-patch+json",
      ),
    200,
  );

  // Watch: 10 watchers on a fresh namespace, then WATCH_EVENTS creates; events/s delivered to all.
  const namespace = "watch-bench";
  await send("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace },
  });
  const total = WATCH_EVENTS * CLIENTS;
  let received = 0;
  let finish: () => void = () => undefined;
  const allReceived = new Promise<void>((done) => (finish = done));
  const watchers = await Promise.all(
    Array.from(
      { length: CLIENTS },
      () =>
        new Promise<import("node:http").ClientRequest>((ready) => {
          const req = request(
            new URL(
              `/api/v1/namespaces/${namespace}/configmaps?watch=true&fieldSelector=metadata.name!%3Dkube-root-ca.crt`,
              url,
            ),
            { agent: new Agent({ ca: caPem }), headers: { authorization: "Bearer bench" } },
            (res) => {
              res.setEncoding("utf8");
              res.on("data", (chunk: string) => {
                for (let at = chunk.indexOf("\n"); at !== -1; at = chunk.indexOf("\n", at + 1)) received++;
                if (received >= total) finish();
              });
              ready(req);
            },
          );
          req.on("error", () => undefined);
          req.end();
        }),
    ),
  );
  parentPort?.postMessage({ mark: "start", phase: "watch" });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < WATCH_EVENTS) {
        const i = next++;
        await send("POST", `/api/v1/namespaces/${namespace}/configmaps`, configMap(`w${i}`));
      }
    }),
  );
  await Promise.race([allReceived, new Promise((done) => setTimeout(done, 60_000))]);
  parentPort?.postMessage({ mark: "end", phase: "watch", count: received });
  const watch = {
    events: received,
    expected: total,
    perSecond: Math.round(received / ((performance.now() - started) / 1000)),
  };
  for (const watcher of watchers) watcher.destroy();
  agent.destroy();
  return { creates, gets, patches, watch };
};

if (!isMainThread) {
  parentPort?.postMessage({ done: await clients(workerData as Target) });
} else {
  // ---- the emulator (main thread) ------------------------------------------------------------
  const Context = await import("effect/Context");
  const Effect = await import("effect/Effect");
  const Layer = await import("effect/Layer");
  const { KubeEmulator } = await import("src/api/Emulator.ts");
  const { FaultInjector } = await import("src/control/FaultInjector.ts");
  const { EmulatorServer } = await import("src/server/EmulatorServer.ts");

  /** The emulator thread's CPU time per phase (robust when the machine is shared). */
  const serverCpu: Record<string, { cpuMs: number; microsPerItem: number }> = {};
  const program = Effect.gen(function* () {
    const context = yield* Layer.build(
      EmulatorServer.layer({ tls: true }).pipe(
        Layer.provideMerge(Layer.merge(KubeEmulator.layer(), FaultInjector.layer)),
      ),
    );
    const server = Context.get(context, EmulatorServer);
    const emulator = Context.get(context, KubeEmulator);
    const http = yield* Effect.promise(
      () =>
        new Promise<Awaited<ReturnType<typeof clients>>>((done, fail) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: { url: server.url, caPem: server.caPem } satisfies Target,
            execArgv: process.execArgv.filter((arg) => arg !== "--expose-gc"),
          });
          const begun = new Map<string, number>();
          worker.on(
            "message",
            (message: {
              mark?: string;
              phase?: string;
              count?: number;
              done?: Awaited<ReturnType<typeof clients>>;
            }) => {
              const cpu = process.threadCpuUsage();
              const micros = cpu.user + cpu.system;
              if (message.mark === "start" && message.phase !== undefined) begun.set(message.phase, micros);
              if (message.mark === "end" && message.phase !== undefined) {
                const used = micros - (begun.get(message.phase) ?? micros);
                serverCpu[message.phase] = {
                  cpuMs: Math.round(used / 1000),
                  microsPerItem: Math.round(used / Math.max(1, message.count ?? 1)),
                };
              }
              if (message.done !== undefined) done(message.done);
            },
          );
          worker.once("error", fail);
        }),
    );
    // Memory per stored object, measured on a fresh emulator through `apply`.
    const memory = yield* Effect.scoped(
      Effect.gen(function* () {
        const fresh = Context.get(yield* Layer.build(KubeEmulator.layer()), KubeEmulator);
        const gc = (globalThis as { gc?: () => void }).gc;
        gc?.();
        const before = process.memoryUsage().heapUsed;
        for (let start = 0; start < MEMORY_OBJECTS; start += 1000) {
          yield* fresh.apply(
            Array.from({ length: Math.min(1000, MEMORY_OBJECTS - start) }, (_, k) => ({
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: `mem-${start + k}`, namespace: "default", labels: { app: "bench" } },
              data: { key: "value" },
            })),
          );
        }
        gc?.();
        const bytes = process.memoryUsage().heapUsed - before;
        return {
          objects: MEMORY_OBJECTS,
          bytesPerObject: Math.round(bytes / MEMORY_OBJECTS),
          gcExposed: gc !== undefined,
        };
      }),
    );
    void emulator;
    return { ...http, memory, serverCpu };
  });

  const results = await Effect.runPromise(Effect.scoped(program));
  const cpu = (phase: string, unit: string) => {
    const used = serverCpu[phase];
    return used === undefined
      ? ""
      : `; server ${used.microsPerItem} µs CPU per ${unit} (≈${Math.round(1e6 / Math.max(1, used.microsPerItem))}/s per core)`;
  };
  const rate = (r: Rate, phase: string) =>
    `${r.requests} requests, ${r.failed} failed${cpu(phase, "request")}`;
  const rows: Array<readonly [string, string, string]> = [
    ["creates (POST, 10 clients)", `${results.creates.perSecond} req/s`, rate(results.creates, "creates")],
    ["gets (GET, 10 clients)", `${results.gets.perSecond} req/s`, rate(results.gets, "gets")],
    [
      "merge patches (PATCH, 10 clients)",
      `${results.patches.perSecond} req/s`,
      rate(results.patches, "patches"),
    ],
    [
      "watch events to 10 watchers",
      `${results.watch.perSecond} events/s`,
      `${results.watch.events}/${results.watch.expected} delivered${cpu("watch", "event")}`,
    ],
    [
      "memory per stored object",
      `${results.memory.bytesPerObject} B`,
      `${results.memory.objects} configmaps${results.memory.gcExposed ? "" : " (no --expose-gc: rough)"}`,
    ],
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  console.log(`\nemulator over HTTPS, keep-alive, ${DURATION_MS} ms per phase, ${cpus().length} CPUs\n`);
  for (const [name, value, detail] of rows)
    console.log(`${name.padEnd(width)}  ${value.padStart(16)}  ${detail}`);
  const out = resolve(process.env.BENCH_OUT ?? ".reports/bench/emulator.json");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, durationMs: DURATION_MS, ...results }, null, 2)}\n`,
  );
  console.log(`\nwritten to ${out}`);
}

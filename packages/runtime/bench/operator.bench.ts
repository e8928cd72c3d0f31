// Benchmark of the operator against the emulator over HTTPS (not a timed test). The emulator runs
// as a separate process (`kopf emulator`); this process runs the operator (one trivial create
// handler, no finalizer needed) through the live client, and a separate client creating the
// objects. Measured per scenario (BENCH_OBJECTS, default "1000,10000"):
//   - objects/s handled to completion (from the first create to the last "Creation is processed");
//   - API requests per handled object, by verb, as the operator's transport sent them;
//   - p50/p99 latency to the handler's start: from the object's first processing step (its watch
//     event dequeued; "event→handler") and from sending its create request ("create sent→handler",
//     which adds the API server, the watch delivery and the per-object queue);
//   - CPU time of this process per handled object, minus the creating client's share (estimated
//     from a run of the same creates without an operator), i.e. the framework plus the handler;
//   - peak RSS and heap with all objects watched.
// Prints a table and writes JSON to .reports/bench/operator.json (or $BENCH_OUT).
//
//   node --conditions=@kopf/source --expose-gc packages/runtime/bench/operator.bench.ts
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CredentialsVault, KubeApi, KubeClient, KubeTransport, NodeTransport } from "@kopf/client";
import { Registry } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { Logging, Operator } from "../src/index.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SCENARIOS = (process.env.BENCH_OBJECTS ?? "1000,10000").split(",").map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const kopfExamples = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
  subresources: ["status"],
});
const namespaces = Resource.make({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
});

// ---- the emulator process ----------------------------------------------------------------------

const startEmulator = async (dir: string): Promise<{ kubeconfig: string; child: ChildProcess }> => {
  const kubeconfig = join(dir, "kubeconfig");
  const child = spawn(
    process.execPath,
    [
      join(root, "packages/cli/bin/kopf.js"),
      "emulator",
      "--kubeconfig",
      kubeconfig,
      "--crd",
      join(root, "examples/crd.yaml"),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((done, fail) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("kubeconfig written")) done();
    });
    child.once("exit", (code) => fail(new Error(`the emulator exited with ${code}: ${out}`)));
  });
  return { kubeconfig, child };
};

// ---- counting the operator's requests ----------------------------------------------------------

type Counts = Map<string, number>;

const counting = (counts: Counts) =>
  Layer.effect(
    KubeTransport,
    Effect.gen(function* () {
      const inner = yield* KubeTransport;
      const count = (method: string, path: string) => {
        const verb = path.includes("watch=true")
          ? "WATCH"
          : path.includes("/events")
            ? `${method} events`
            : path.split("?")[0]!.endsWith("/status")
              ? `${method} status`
              : method;
        counts.set(verb, (counts.get(verb) ?? 0) + 1);
      };
      return KubeTransport.of({
        request: (request) =>
          Effect.suspend(() => {
            count(request.method, request.path);
            if (process.env.BENCH_DEBUG !== undefined && request.method === "PATCH") {
              console.log(
                request.method,
                request.path,
                new TextDecoder().decode(request.body ?? new Uint8Array()),
              );
            }
            return inner.request(request);
          }),
        stream: (request) =>
          Effect.suspend(() => {
            count(request.method, request.path);
            return inner.stream(request);
          }),
      });
    }),
  ).pipe(Layer.provide(NodeTransport.layer()));

const liveClient = (kubeconfig: string, counts: Counts | undefined) => {
  const login = KubeClient.defaultLogin({ kubeconfig: { paths: kubeconfig } });
  const transport = counts === undefined ? NodeTransport.layer() : counting(counts);
  return KubeApi.layer().pipe(
    Layer.provideMerge(Layer.mergeAll(CredentialsVault.layer({ login }), transport)),
  );
};

// ---- one scenario --------------------------------------------------------------------------------

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const createAll = (
  api: KubeApi["Service"],
  namespace: string,
  prefix: string,
  n: number,
  created: Map<string, number>,
) =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => `${prefix}-${i}`),
    (name) =>
      Effect.suspend(() => {
        created.set(name, performance.now()); // when the create request is sent
        return api.create(kopfExamples, {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name, namespace },
          spec: { field: "value" },
        });
      }),
    { concurrency: CONCURRENCY, discard: true },
  );

const scenario = (kubeconfig: string, n: number, index: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const prefix = `s${index}`;
      const namespace = `bench-${index}`;
      const counts: Counts = new Map();
      const seenAt = new Map<string, number>(); // the watch event's arrival, per object
      const started = new Map<string, number>(); // the handler's start, per object
      let processed = 0;
      let lastProcessed = 0;
      const allDone = yield* Deferred.make<void>();
      const registry = Registry.make();
      registry.on.create("kopfexamples", function create_fn({ name }) {
        started.set(String(name), performance.now());
        return { ok: true };
      });
      // The watch event's arrival: the first log line about the object (processing begins with it).
      const logger = Logger.make((options) => {
        const record = Logging.recordOf(options);
        const name = record.ref?.name;
        if (typeof name !== "string" || !name.startsWith(`${prefix}-`)) return;
        if (!seenAt.has(name)) seenAt.set(name, performance.now());
        if (record.message.startsWith("Creation is processed")) {
          processed += 1;
          lastProcessed = performance.now();
          if (processed === n) Deferred.doneUnsafe(allDone, Effect.void);
        }
      });
      const creator = Context.get(yield* Layer.build(liveClient(kubeconfig, undefined)), KubeApi);
      const ready = yield* Deferred.make<void>();
      const cpuBefore = process.cpuUsage();
      let peakRss = 0;
      let peakHeap = 0;
      const sampler = setInterval(() => {
        const usage = process.memoryUsage();
        peakRss = Math.max(peakRss, usage.rss);
        peakHeap = Math.max(peakHeap, usage.heapUsed);
      }, 50);
      const operator = yield* Effect.forkChild(
        Operator.run({ registry, namespaces: [namespace], standalone: true, ready }).pipe(
          Effect.provide(
            Layer.mergeAll(
              liveClient(kubeconfig, counts),
              Logger.layer([logger], { mergeWithExisting: false }),
              Layer.succeed(References.MinimumLogLevel, "Debug"),
            ),
          ),
        ),
      );
      yield* Deferred.await(ready);
      const created = new Map<string, number>();
      const t0 = performance.now();
      yield* createAll(creator, namespace, prefix, n, created);
      yield* Deferred.await(allDone).pipe(Effect.timeout("600 seconds"));
      const elapsed = (lastProcessed - t0) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      clearInterval(sampler);
      yield* Effect.sleep("500 millis"); // let trailing requests (echoes) be counted
      const requests = Object.fromEntries([...counts].map(([verb, count]) => [verb, count]));
      yield* Fiber.interrupt(operator);
      const latencies = [...started].map(([name, at]) => at - (seenAt.get(name) ?? at)).sort((a, b) => a - b);
      const createToStart = [...started]
        .map(([name, at]) => at - (created.get(name) ?? at))
        .sort((a, b) => a - b);
      return {
        objects: n,
        seconds: round(elapsed),
        handledPerSecond: round(n / elapsed),
        requests,
        writesPerObject: round(
          [...counts]
            .filter(([verb]) => /^(PATCH|POST|PUT|DELETE)/.test(verb) && !verb.includes("events"))
            .reduce((sum, [, count]) => sum + count, 0) / n,
        ),
        requestsPerObject: round([...counts.values()].reduce((a, b) => a + b, 0) / n),
        eventToHandlerMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
        createToHandlerMs: {
          p50: round(percentile(createToStart, 50)),
          p99: round(percentile(createToStart, 99)),
        },
        cpuMsPerObject: round((cpu.user + cpu.system) / 1000 / n),
        peakRssMiB: round(peakRss / 2 ** 20),
        peakHeapMiB: round(peakHeap / 2 ** 20),
      };
    }),
  );

const round = (value: number) => Math.round(value * 100) / 100;

/** The creating client's CPU time per object without an operator (subtracted from the totals). */
const creatorCpu = (kubeconfig: string, n: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const creator = Context.get(yield* Layer.build(liveClient(kubeconfig, undefined)), KubeApi);
      const before = process.cpuUsage();
      yield* createAll(creator, "bench-baseline", "baseline", n, new Map());
      const cpu = process.cpuUsage(before);
      return (cpu.user + cpu.system) / 1000 / n;
    }),
  );

// ---- main --------------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), "kopf-bench-"));
const { kubeconfig, child } = await startEmulator(dir);
try {
  const results = await Effect.runPromise(
    Effect.gen(function* () {
      const setup = Context.get(yield* Layer.build(liveClient(kubeconfig, undefined)), KubeApi);
      for (const name of ["bench-baseline", ...SCENARIOS.map((_, i) => `bench-${i}`)]) {
        yield* setup.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
      }
      const baseline = yield* creatorCpu(kubeconfig, Math.min(1000, Math.max(...SCENARIOS)));
      const rows = [];
      for (const [index, n] of SCENARIOS.entries()) {
        const row = yield* scenario(kubeconfig, n, index);
        rows.push({ ...row, frameworkCpuMsPerObject: round(Math.max(0, row.cpuMsPerObject - baseline)) });
      }
      return { creatorCpuMsPerObject: round(baseline), scenarios: rows };
    }).pipe(Effect.scoped, Effect.provideService(References.MinimumLogLevel, "Warn")),
  );
  const table = [
    [
      "objects",
      "handled/s",
      "writes/obj",
      "requests/obj (by verb)",
      "event→handler p50/p99 ms",
      "create sent→handler p50/p99 ms",
      "CPU ms/obj",
      "peak RSS MiB",
    ],
    ...results.scenarios.map((r) => [
      String(r.objects),
      String(r.handledPerSecond),
      String(r.writesPerObject),
      `${r.requestsPerObject} (${Object.entries(r.requests)
        .map(([v, c]) => `${v} ${round(c / r.objects)}`)
        .join(", ")})`,
      `${r.eventToHandlerMs.p50} / ${r.eventToHandlerMs.p99}`,
      `${r.createToHandlerMs.p50} / ${r.createToHandlerMs.p99}`,
      String(r.frameworkCpuMsPerObject),
      String(r.peakRssMiB),
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  console.log("\nOperator against the emulator over HTTPS (one trivial create handler, no finalizer)");
  for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
  console.log(`(the creating client's own CPU, ${results.creatorCpuMsPerObject} ms/object, is subtracted)`);
  const out = process.env.BENCH_OUT ?? join(root, ".reports/bench/operator.json");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...results }, null, 2)}\n`,
  );
  console.log(`written to ${out}`);
} finally {
  child.kill("SIGTERM");
}

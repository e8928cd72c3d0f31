// Benchmark of the framework's own overhead (not a timed test): the operator runs against the
// in-process emulator (its KubeTransport, no sockets, no TLS), with one trivial create handler, and
// N objects (BENCH_OVERHEAD_OBJECTS, default 5000) are created straight into the emulator's store
// while it runs and watches (a first object, not counted, is handled before). Two passes over
// fresh emulators:
//   1. unprofiled: objects/s handled to completion (first create → last "Creation is processed")
//      and the process's CPU time per object;
//   2. under the V8 sampling profiler (node:inspector, 100 µs): each CPU sample is attributed to the
//      innermost frame that belongs to a known seam of the framework — watch-event decode, cause
//      detection, handler invocation, patch building, request sending — or to the emulator, the
//      logging, the metrics, the orchestration (queues, processing), Effect's own runtime, the
//      GC, or this benchmark's own creating of the objects (a client's work, not the
//      framework's). The shares are applied to pass 1's CPU per object, so the profiler's own
//      overhead is excluded.
// No timing code is added to the library: the split comes from the profile's stacks only. Mind
// what a stack can tell: an effect a seam returns (rather than calls) is run later by its fiber's
// loop, whose stack starts where the fiber was forked — for the per-object workers, in the queues
// — so "orchestration" also holds the Effect machinery (fibers, generators, contexts, spans) of
// every step the workers run; the named seams count the plain code they call.
// Prints a table and writes JSON to .reports/bench/overhead.json (or $BENCH_OUT).
// BENCH_OVERHEAD_SPLIT=0 runs pass 1 only (BENCH_OVERHEAD_ROUNDS times, default 1) and prints
// its CPU per object: for comparing changes on a loaded machine, where the least of a few rounds
// is the steadiest figure.
//
//   node --conditions=@kopf/source packages/runtime/bench/overhead.bench.ts
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CredentialsVault, KubeApi, KubeTransport } from "@kopf/client";
import { EmulatorTransport, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import { Applying, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { Logging, Operator } from "../src/index.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const N = Number(process.env.BENCH_OVERHEAD_OBJECTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const NAMESPACE = "bench";

// ---- where a CPU sample belongs ----------------------------------------------------------------

const SEAMS: ReadonlyArray<readonly [string, RegExp]> = [
  ["handler invocation", /packages\/runtime\/src\/execution\//],
  [
    "watch-event decode",
    /packages\/client\/src\/internal\/(jsonLines|watching)\.ts|packages\/watcher\/src\//,
  ],
  ["cause detection", /packages\/causes\/src\/|packages\/registry\/src\//],
  [
    "patch building",
    /packages\/structs\/src\/|packages\/storage\/src\/|packages\/runtime\/src\/PatchApplier\.ts/,
  ],
  // The metric series' updates, wherever they are made from (requests, cycles, handlers, watches).
  ["metrics", /packages\/client\/src\/MetricSeries\.ts|packages\/runtime\/src\/Metrics\.ts/],
  ["request sending", /packages\/client\/src\/|packages\/testing\/src\/kubeapi\//],
  ["emulator (API server)", /packages\/(emulator|testing)\/src\//],
  ["logging", /packages\/runtime\/src\/Logging\.ts/],
  ["orchestration", /packages\/runtime\/src\//],
];
const FRAMEWORK = new Set([
  "watch-event decode",
  "cause detection",
  "handler invocation",
  "patch building",
  "request sending",
  "logging",
  "metrics",
  "orchestration",
  "Effect runtime",
]);

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: ReadonlyArray<number>;
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>;
  readonly samples: ReadonlyArray<number>;
  readonly timeDeltas: ReadonlyArray<number>;
}

/**
 * The seam of a frame of this file: the handler is the framework's call of user code, the log
 * sink stands for a logging backend, and the rest creates the objects (a client's work).
 */
const benchSeamOf = (functionName: string): string =>
  functionName === "create_fn"
    ? "handler invocation"
    : functionName === "benchLogSink"
      ? "logging"
      : "objects created (bench)";

/** Microseconds of samples per seam: the innermost frame of a known seam decides. */
const splitProfile = (profile: Profile): Map<string, number> => {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const memo = new Map<number, string>();
  const seamOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const { url, functionName } = node.callFrame;
    let seam: string | undefined;
    if (functionName === "(garbage collector)") seam = "GC";
    else if (/overhead\.bench\.ts/.test(url)) seam = benchSeamOf(functionName);
    else if (functionName === "(idle)" || functionName === "(program)") seam = "idle/other";
    else seam = SEAMS.find(([, pattern]) => pattern.test(url))?.[0];
    if (seam === undefined) {
      const up = parent.get(id);
      seam =
        up === undefined ? (url.includes("node_modules/effect") ? "Effect runtime" : "other") : seamOf(up);
      if (seam === "other" && url.includes("node_modules/effect")) seam = "Effect runtime";
    }
    memo.set(id, seam);
    return seam;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seam = seamOf(id);
    totals.set(seam, (totals.get(seam) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  });
  totals.delete("idle/other");
  return totals;
};

// ---- one run over a fresh in-process emulator --------------------------------------------------

const createBody = (name: string) =>
  new TextEncoder().encode(
    JSON.stringify({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name, namespace: NAMESPACE },
      spec: { field: "value" },
    }),
  );

const run = (profiled: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emulatorContext = yield* Layer.build(KubeEmulator.layer());
      const emulator = Context.get(emulatorContext, KubeEmulator);
      const client = EmulatorTransport.client().pipe(Layer.provide(Layer.succeedContext(emulatorContext)));
      const setup = Context.get(yield* Layer.build(client), KubeApi);
      yield* Applying.apply([
        { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
        KopfRunner.customResourceDefinition({}),
      ]).pipe(Effect.provideService(KubeApi, setup), Effect.orDie);

      const requests = new Map<string, number>();
      const counting = Layer.effect(
        KubeTransport,
        Effect.map(EmulatorTransport.make(), (inner) =>
          KubeTransport.of({
            request: (request) =>
              Effect.suspend(() => {
                requests.set(request.method, (requests.get(request.method) ?? 0) + 1);
                return inner.request(request);
              }),
            stream: (request) => inner.stream(request),
          }),
        ),
      ).pipe(Layer.provide(Layer.succeedContext(emulatorContext)));
      const operatorClient = KubeApi.layer().pipe(
        Layer.provideMerge(
          Layer.mergeAll(CredentialsVault.layerStatic(EmulatorTransport.credentials()), counting),
        ),
      );

      let processed = 0;
      let handled = 0;
      let lastProcessed = 0;
      const warmedUp = yield* Deferred.make<void>();
      const allDone = yield* Deferred.make<void>();
      const registry = Registry.make();
      registry.on.create("kopfexamples", function create_fn() {
        handled += 1;
        return { ok: true };
      });
      const logger = Logger.make(function benchLogSink(options) {
        const record = Logging.recordOf(options);
        if (record.message.startsWith("Creation is processed")) {
          processed += 1;
          lastProcessed = performance.now();
          if (processed === 1) Deferred.doneUnsafe(warmedUp, Effect.void);
          if (processed === N) Deferred.doneUnsafe(allDone, Effect.void);
        }
      });
      const ready = yield* Deferred.make<void>();
      const operator = yield* Effect.forkChild(
        Operator.run({ registry, namespaces: [NAMESPACE], standalone: true, ready }).pipe(
          Effect.provide(
            Layer.mergeAll(
              operatorClient,
              Logger.layer([logger], { mergeWithExisting: false }),
              Layer.succeed(References.MinimumLogLevel, "Info"),
              // As `kopf run` without a trace export (Operating.run's tracing layer): no spans.
              Layer.succeed(References.TracerEnabled, false),
            ),
          ),
        ),
      );
      yield* Deferred.await(ready);
      const user = { username: "bench", groups: ["system:masters"] };
      const create = (name: string) =>
        emulator.handle({
          method: "POST",
          path: `/apis/kopf.dev/v1/namespaces/${NAMESPACE}/kopfexamples`,
          query: new URLSearchParams(),
          headers: { "content-type": "application/json" },
          body: createBody(name),
          user,
        });
      // One object first, handled before the clock starts: the operator is then watching (its
      // listing done), so the objects below come as watch events, as they do to a running
      // operator. (Created at once after start, they all came in its first listing's pages.)
      yield* create("warm-up");
      yield* Deferred.await(warmedUp);
      processed = 0;
      handled = 0;
      requests.clear();
      const session = new Session();
      if (profiled) {
        session.connect();
        yield* Effect.promise(() => session.post("Profiler.enable"));
        yield* Effect.promise(() => session.post("Profiler.setSamplingInterval", { interval: 100 }));
        yield* Effect.promise(() => session.post("Profiler.start"));
      }
      const cpuBefore = process.cpuUsage();
      const mainBefore = process.threadCpuUsage();
      const t0 = performance.now();
      yield* Effect.forEach(
        Array.from({ length: N }, (_, i) => `o-${i}`),
        create,
        { concurrency: CONCURRENCY, discard: true },
      );
      yield* Deferred.await(allDone).pipe(Effect.timeout("600 seconds"), Effect.orDie);
      const cpu = process.cpuUsage(cpuBefore);
      const main = process.threadCpuUsage(mainBefore);
      const seconds = (lastProcessed - t0) / 1000;
      let split: Map<string, number> | undefined;
      if (profiled) {
        const { profile } = yield* Effect.promise(() => session.post("Profiler.stop"));
        split = splitProfile(profile as Profile);
        const dump = process.env.BENCH_CPU_PROFILE; // the raw profile, for a closer look
        if (dump !== undefined) writeFileSync(dump, JSON.stringify(profile));
        session.disconnect();
      }
      yield* Fiber.interrupt(operator);
      return {
        seconds,
        handled,
        objectsPerSecond: N / seconds,
        cpuUsPerObject: (cpu.user + cpu.system) / N,
        // The JavaScript thread alone (the rest: the GC's and the compiler's helper threads).
        mainThreadCpuUsPerObject: (main.user + main.system) / N,
        requestsPerObject: Object.fromEntries([...requests].map(([verb, count]) => [verb, round(count / N)])),
        split,
      };
    }),
  );

const round = (value: number) => Math.round(value * 10) / 10;

// ---- main --------------------------------------------------------------------------------------

const load = loadavg();
if (process.env.BENCH_OVERHEAD_SPLIT === "0") {
  const rounds = Number(process.env.BENCH_OVERHEAD_ROUNDS ?? 1);
  for (let round = 1; round <= rounds; round++) {
    const plain = await Effect.runPromise(
      run(false).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")),
    );
    console.log(
      `round ${round}: ${N} objects, CPU µs/object ${Math.round(plain.cpuUsPerObject)} (main thread ${Math.round(
        plain.mainThreadCpuUsPerObject,
      )}), handled/s ${Math.round(plain.objectsPerSecond)}, requests/object ${JSON.stringify(
        plain.requestsPerObject,
      )}, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  }
  process.exit(0);
}
const { plain, profiled } = await Effect.runPromise(
  Effect.gen(function* () {
    const plain = yield* run(false);
    const profiled = yield* run(true);
    return { plain, profiled };
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")),
);
const split = profiled.split!;
const sampled = [...split.values()].reduce((a, b) => a + b, 0);
const perObject = Object.fromEntries(
  [...split]
    .sort(([, a], [, b]) => b - a)
    .map(([seam, us]) => [seam, round((us / sampled) * plain.cpuUsPerObject)]),
);
const frameworkUs = round(
  Object.entries(perObject)
    .filter(([seam]) => FRAMEWORK.has(seam))
    .reduce((sum, [, us]) => sum + us, 0),
);
console.log(
  `\nFramework overhead: ${N} objects, one trivial create handler, in-process emulator (load ${load
    .map((l) => l.toFixed(1))
    .join(" ")})`,
);
console.log(`  handled/s            ${round(plain.objectsPerSecond)}  (target ≥ 5000)`);
console.log(
  `  CPU µs/object        ${round(plain.cpuUsPerObject)} in all (main thread ${round(
    plain.mainThreadCpuUsPerObject,
  )}), ${frameworkUs} framework`,
);
// On a loaded machine the wall clock measures the other processes; the CPU time does not.
console.log(
  `  objects/CPU-second   ${round(1e6 / plain.cpuUsPerObject)} in all, ${round(1e6 / frameworkUs)} framework only`,
);
console.log(`  requests/object      ${JSON.stringify(plain.requestsPerObject)}`);
console.log("  CPU µs/object by seam (profiled pass, scaled to the unprofiled total):");
const width = Math.max(...Object.keys(perObject).map((seam) => seam.length));
for (const [seam, us] of Object.entries(perObject)) {
  console.log(
    `    ${seam.padEnd(width)}  ${String(us).padStart(7)}${FRAMEWORK.has(seam) ? "" : "  (not framework)"}`,
  );
}
const report = {
  date: new Date().toISOString(),
  node: process.version,
  loadavg: load,
  objects: N,
  handledPerSecond: round(plain.objectsPerSecond),
  objectsPerCpuSecond: round(1e6 / plain.cpuUsPerObject),
  frameworkObjectsPerCpuSecond: round(1e6 / frameworkUs),
  cpuUsPerObject: round(plain.cpuUsPerObject),
  mainThreadCpuUsPerObject: round(plain.mainThreadCpuUsPerObject),
  frameworkCpuUsPerObject: frameworkUs,
  cpuUsPerObjectBySeam: perObject,
  requestsPerObject: plain.requestsPerObject,
  profiledPass: { handledPerSecond: round(profiled.objectsPerSecond), seconds: round(profiled.seconds) },
};
const out = process.env.BENCH_OUT ?? join(root, ".reports/bench/overhead.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`written to ${out}`);

// Benchmark of scaling an operator out (not a timed test), on the in-process emulator in real
// time, three parts of well under two minutes together:
//   1. watch traffic per replica: N watchers (1, 2, 4), each of an equal share of the uid hash
//      space (`Watcher` option `shards`), list and watch BENCH_SHARD_OBJECTS objects (half before
//      they start, half while they run); bytes and events the server sent each, with the
//      ShardedListAndWatch gate on (the server filters: ≈ 1/N of the unsharded figure) and off
//      (every replica receives everything and filters itself);
//   2. objects/s with 1, 2 and 4 sharded replicas (`Operating.run` with `sharding`), all in this
//      one process: once the ring has settled, BENCH_SHARD_OBJECTS objects are created and the
//      time until each was handled is measured (one event loop: this shows the coordination's
//      cost, not a parallel speed-up);
//   3. failover with leader election and 2 replicas: the leader killed (cut off from the API,
//      then stopped without releasing) and, later, the new leader stopped gracefully; the time
//      until the other replica holds the Lease, with client-go's defaults (15 s, 10 s, 2 s).
// Prints tables and writes JSON to .reports/bench/scaleout.json (or $BENCH_OUT).
//
//   node --conditions=@kopf/source packages/engines/bench/scaleout.bench.ts
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CredentialsVault, KubeApi, KubeTransport } from "@kopf/client";
import { EmulatorTransport, KubeEmulator } from "@kopf/emulator";
import { Settings } from "@kopf/settings";
import { type RawBody, ShardRange } from "@kopf/structs";
import { Clusters } from "@kopf/testing";
import { ListWatch, Watcher } from "@kopf/watcher";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as References from "effect/References";
import * as Stream from "effect/Stream";
import * as H from "../test/fixtures/Harness.ts";
import * as Replicas from "../test/fixtures/Replicas.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const OBJECTS = Number(process.env.BENCH_SHARD_OBJECTS ?? 1000);
const GATE_ON = { featureGates: { ShardedListAndWatch: true } };

/** The i-th of n equal shares of the hash space. */
const share = (i: number, n: number): ReadonlyArray<ShardRange.ShardRange> => [
  { start: (ShardRange.SPACE * BigInt(i)) / BigInt(n), end: (ShardRange.SPACE * BigInt(i + 1)) / BigInt(n) },
];

const body = (name: string): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "ns1" },
  spec: { field: "value" },
});

// ---- 1. watch traffic ---------------------------------------------------------------------------

interface Received {
  bytes: number;
  events: number;
}

/** A KubeApi over the emulator that counts the bytes and objects the server sends. */
const countingApi = (emulator: Context.Context<KubeEmulator>, received: Received) =>
  Effect.gen(function* () {
    const transport = Layer.effect(
      KubeTransport,
      Effect.map(EmulatorTransport.make(), (inner) =>
        KubeTransport.of({
          request: (request) =>
            Effect.tap(inner.request(request), (response) =>
              Effect.sync(() => {
                received.bytes += response.body.length;
                if (request.method === "GET" && response.status === 200) {
                  const items = (JSON.parse(new TextDecoder().decode(response.body)) as { items?: unknown[] })
                    .items;
                  received.events += items?.length ?? 0;
                }
              }),
            ),
          stream: (request) =>
            Effect.map(inner.stream(request), (response) => ({
              ...response,
              body: Stream.tap(response.body, (chunk) =>
                Effect.sync(() => {
                  received.bytes += chunk.length;
                  for (const byte of chunk) if (byte === 10) received.events += 1;
                }),
              ),
            })),
        }),
      ),
    ).pipe(Layer.provide(Layer.succeedContext(emulator)));
    const layer = KubeApi.layer().pipe(
      Layer.provide(Layer.mergeAll(CredentialsVault.layerStatic(EmulatorTransport.credentials()), transport)),
    );
    return Context.get(yield* Layer.build(layer), KubeApi);
  });

const traffic = (replicas: number, gate: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emulator = yield* Layer.build(KubeEmulator.layer(gate ? GATE_ON : {}));
      yield* Effect.provideContext(H.setup, emulator);
      const store = Context.get(emulator, KubeEmulator);
      const create = (name: string) =>
        store.handle({
          method: "POST",
          path: "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples",
          query: new URLSearchParams(),
          headers: { "content-type": "application/json" },
          body: new TextEncoder().encode(JSON.stringify(body(name))),
          user: { username: "bench", groups: ["system:masters"] },
        });
      const half = Math.floor(OBJECTS / 2);
      yield* Effect.forEach(
        Array.from({ length: half }, (_, i) => `before-${i}`),
        create,
        { discard: true },
      );
      const counters = Array.from({ length: replicas }, () => ({ bytes: 0, events: 0 }));
      const kept = Array.from({ length: replicas }, () => 0);
      for (const [i, counter] of counters.entries()) {
        const api = yield* countingApi(emulator, counter);
        yield* Effect.forkScoped(
          Stream.runForEach(
            Watcher.fromListWatch(
              ListWatch.fromKubeApi(api, H.resource, "ns1"),
              { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" },
              { shards: replicas === 1 ? undefined : share(i, replicas) },
            ),
            (item) =>
              Effect.sync(() => {
                if (item._tag === "Event") kept[i] = (kept[i] ?? 0) + 1;
              }),
          ),
        );
      }
      yield* Effect.sleep("200 millis");
      yield* Effect.forEach(
        Array.from({ length: OBJECTS - half }, (_, i) => `after-${i}`),
        create,
        {
          discard: true,
        },
      );
      while (kept.reduce((a, b) => a + b, 0) < OBJECTS) yield* Effect.sleep("20 millis");
      yield* Effect.sleep("200 millis");
      const mean = (f: (c: Received) => number) => counters.reduce((a, c) => a + f(c), 0) / replicas;
      return {
        replicas,
        gate,
        bytesPerReplica: mean((c) => c.bytes),
        eventsPerReplica: mean((c) => c.events),
      };
    }),
  );

// ---- 2. objects/s with sharded replicas ----------------------------------------------------------

const throughput = (replicas: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* H.setup;
      const log: Array<Replicas.Invocation> = [];
      for (let i = 0; i < replicas; i++)
        yield* Replicas.start(`r${i}`, log, { sharding: true, identity: `r${i}` });
      const started = yield* Clock.currentTimeMillis;
      while (!(yield* Replicas.ringSettled(replicas))) yield* Effect.sleep("100 millis");
      const settled = (yield* Clock.currentTimeMillis) - started;
      yield* Effect.sleep("500 millis");
      const t0 = performance.now();
      yield* Effect.forEach(
        Array.from({ length: OBJECTS }, (_, i) => `o-${i}`),
        (name) => H.create(name),
        {
          concurrency: 16,
          discard: true,
        },
      );
      const done = () => new Set(log.filter((e) => e.end !== undefined).map((e) => e.name)).size >= OBJECTS;
      while (!done()) yield* Effect.sleep("20 millis");
      const seconds = (performance.now() - t0) / 1000;
      const per = new Map<string, number>();
      for (const e of log) per.set(e.replica, (per.get(e.replica) ?? 0) + 1);
      return {
        replicas,
        ringSettledSeconds: settled / 1000,
        objectsPerSecond: OBJECTS / seconds,
        invocations: log.length,
        perReplica: Object.fromEntries(per),
      };
    }),
  ).pipe(Effect.provide(environment({})));

// ---- 3. failover with leader election -------------------------------------------------------------

const failover = Effect.scoped(
  Effect.gen(function* () {
    yield* H.setup;
    const log: Array<Replicas.Invocation> = [];
    const a = yield* Replicas.start("a", log, { leaderElection: true, identity: "a" });
    yield* Replicas.heldBy("a");
    const b = yield* Replicas.start("b", log, { leaderElection: true, identity: "b" });
    yield* Effect.sleep("3 seconds");
    a.cut.value = true; // killed: it can neither renew nor release
    yield* Effect.forkScoped(a.stop);
    const afterKill = yield* Replicas.heldBy("b");
    const restarted = yield* Replicas.start("a2", log, { leaderElection: true, identity: "a" });
    yield* Effect.sleep("3 seconds");
    yield* Effect.forkScoped(b.stop);
    const afterGracefulStop = yield* Replicas.heldBy("a");
    yield* restarted.stop;
    return { afterKill, afterGracefulStop };
  }),
).pipe(Effect.provide(environment({})));

function environment(options: Parameters<typeof Clusters.inProcess>[0]) {
  return Layer.mergeAll(Clusters.inProcess(options), Settings.layer({ networking: { errorBackoffs: [] } }));
}

// ---- the run -------------------------------------------------------------------------------------

const main = Effect.gen(function* () {
  const traffics = [];
  for (const gate of [true, false])
    for (const replicas of [1, 2, 4]) traffics.push(yield* traffic(replicas, gate));
  console.log(`watch traffic per replica, ${OBJECTS} objects (half listed, half watched):`);
  console.log("  gate  replicas  KiB/replica  events/replica  vs 1 replica");
  for (const t of traffics) {
    const base = traffics.find((u) => u.gate === t.gate && u.replicas === 1)?.bytesPerReplica ?? 1;
    console.log(
      `  ${t.gate ? "on " : "off"}   ${String(t.replicas).padStart(8)}  ${(t.bytesPerReplica / 1024).toFixed(0).padStart(11)}  ${t.eventsPerReplica.toFixed(0).padStart(14)}  ${(t.bytesPerReplica / base).toFixed(2).padStart(12)}`,
    );
  }
  const throughputs = [];
  for (const replicas of [1, 2, 4]) throughputs.push(yield* throughput(replicas));
  console.log(`\nobjects/s with sharded replicas in one process, ${OBJECTS} objects:`);
  for (const t of throughputs)
    console.log(
      `  ${t.replicas} replica(s): ${t.objectsPerSecond.toFixed(0)} objects/s (ring settled in ${t.ringSettledSeconds.toFixed(1)} s; ${t.invocations} invocations ${JSON.stringify(t.perReplica)})`,
    );
  const fail = yield* failover;
  console.log(
    `\nleader-election failover, 2 replicas: after a kill ${fail.afterKill.toFixed(2)} s, after a graceful stop ${fail.afterGracefulStop.toFixed(2)} s`,
  );
  return { objects: OBJECTS, traffic: traffics, throughput: throughputs, failover: fail };
});

const report = await Effect.runPromise(
  main.pipe(Effect.provideService(References.MinimumLogLevel, "Error"), Effect.orDie),
);
const out = process.env.BENCH_OUT ?? join(root, ".reports/bench/scaleout.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwritten ${out}`);

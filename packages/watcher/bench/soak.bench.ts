// Soak test of the watcher (not part of the default test run):
//   node --conditions=@kopf/source packages/watcher/bench/soak.bench.ts
// Environment: SOAK_BACKEND (`emulator`: the real KubeApi over the in-process API emulator;
// `fake`: the scripted backend of the unit tests, which can also break streams with transport
// errors), SOAK_OBJECTS (10000), SOAK_CHANGES (50000), SOAK_DROP_EVERY (500: on average one
// dropped stream per this many changes).
// The objects are created, the watcher lists them, then a stream of changes (updates,
// deletions, re-creations) runs while open watch streams are dropped at random moments. At the
// end, the sequence of events seen per object must equal the server's exactly (type and
// resourceVersion of every write; for deletions the type only, as a DELETE answers the object's
// last resourceVersion, not the deletion's, like kube-apiserver), resourceVersions must grow per
// object: nothing lost, duplicated or reordered, and one listing only.
// Prints a JSON summary; a mismatch rejects, so Node exits non-zero.
import { KubeApi } from "@kopf/client";
import { type RawBody, Resource } from "@kopf/structs";
import { KubeEmulator } from "@kopf/testing";
import { Config, Effect, Fiber, Random, References, Stream } from "effect";
import * as ListWatch from "../src/ListWatch.ts";
import * as Watcher from "../src/Watcher.ts";
import * as Emulated from "../test/fixtures/Emulated.ts";
import * as FakeCluster from "../test/fixtures/FakeCluster.ts";

/** What the soak needs from a server: writes that report their event, and a way to drop watches. */
interface Backend {
  readonly listWatch: ListWatch.ListWatch;
  readonly write: (type: "ADDED" | "MODIFIED" | "DELETED", name: string, n: number) => Effect.Effect<string>;
  readonly drop: (n: number) => Effect.Effect<void>;
  readonly pageSize: number;
}

const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const rvOf = (body: RawBody) => body.metadata?.resourceVersion ?? "?";

const fakeBackend = Effect.gen(function* () {
  const fake = yield* FakeCluster.make;
  const backend: Backend = {
    listWatch: fake,
    pageSize: 500,
    write: (type, name, n) =>
      Effect.map(
        type === "ADDED"
          ? fake.create(name, { n })
          : type === "MODIFIED"
            ? fake.update(name, { n })
            : fake.remove(name),
        rvOf,
      ),
    drop: (n) =>
      n % 2 === 0
        ? fake.dropWatches
        : fake.breakWatches(FakeCluster.failure("TransportError", "reset by the soak test")),
  };
  return backend;
});

const emulatorBackend = Effect.gen(function* () {
  const api = yield* KubeApi;
  const emulator = yield* KubeEmulator;
  yield* emulator.apply([Emulated.crd(), { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }]);
  const body = (name: string, n: number): RawBody => ({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name },
    spec: { n },
  });
  const backend: Backend = {
    listWatch: ListWatch.fromKubeApi(api, kex, "ns1"),
    pageSize: 500,
    write: (type, name, n) =>
      Effect.map(
        type === "ADDED"
          ? api.create(kex, body(name, n), { namespace: "ns1" })
          : type === "MODIFIED"
            ? api.patch(kex, { namespace: "ns1", name }, { type: "merge", body: { spec: { n } } })
            : api.delete(kex, { namespace: "ns1", name }),
        rvOf,
      ).pipe(Effect.orDie),
    drop: () => emulator.dropWatches,
  };
  return backend;
});

const soak = (backend: Backend, objects: number, changes: number, dropEvery: number) =>
  Effect.gen(function* () {
    const startedAt = performance.now();
    const server = new Map<string, Array<string>>();
    const entry = (type: string, rv: string) => (type === "DELETED" ? type : `${type}@${rv}`);
    const record = (type: string, name: string, rv: string) => {
      const list = server.get(name) ?? [];
      list.push(entry(type, rv));
      server.set(name, list);
    };
    for (let i = 0; i < objects; i++) yield* backend.write("ADDED", `obj-${i}`, 0);
    const created = performance.now();

    const seen = new Map<string, Array<string>>();
    let listed = 0;
    let delivered = 0;
    let problems = 0;
    let reordered = 0;
    const lastRv = new Map<string, number>();
    const consumer = yield* Effect.forkChild(
      Stream.runForEach(
        Watcher.fromListWatch(
          backend.listWatch,
          { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" },
          { pageSize: backend.pageSize },
        ),
        (item) =>
          Effect.sync(() => {
            if (item._tag === "Listed") listed += 1;
            if (item._tag === "Problem") problems += 1;
            if (item._tag === "Event" && item.type !== null) {
              delivered += 1;
              const name = item.object.metadata?.name ?? "?";
              const list = seen.get(name) ?? [];
              list.push(entry(item.type, rvOf(item.object)));
              seen.set(name, list);
              const rv = Number(rvOf(item.object));
              if (!(rv > (lastRv.get(name) ?? 0))) reordered += 1;
              lastRv.set(name, rv);
            }
          }),
      ),
    );
    while (listed === 0) yield* Effect.sleep(1);

    const alive = Array.from({ length: objects }, (_, i) => `obj-${i}`);
    const deleted: Array<string> = [];
    let drops = 0;
    let written = 0;
    for (let n = 1; n <= changes; n++) {
      const roll = yield* Random.nextBetween(0, 1);
      if (roll < 0.05 && alive.length > 0) {
        const at = yield* Random.nextIntBetween(0, alive.length - 1);
        const name = alive[at] as string;
        alive[at] = alive[alive.length - 1] as string;
        alive.pop();
        deleted.push(name);
        record("DELETED", name, yield* backend.write("DELETED", name, n));
      } else if (roll < 0.08 && deleted.length > 0) {
        const name = deleted.pop() as string;
        alive.push(name);
        record("ADDED", name, yield* backend.write("ADDED", name, n));
      } else if (alive.length > 0) {
        const name = alive[yield* Random.nextIntBetween(0, alive.length - 1)] as string;
        record("MODIFIED", name, yield* backend.write("MODIFIED", name, n));
      }
      written += 1;
      if ((yield* Random.nextIntBetween(0, dropEvery)) === 0) {
        drops += 1;
        yield* backend.drop(drops);
      }
      if (n % 100 === 0) yield* Effect.yieldNow;
    }
    const deadline = performance.now() + 120_000;
    while (delivered < written && performance.now() < deadline) yield* Effect.sleep(10);
    yield* Effect.sleep(300); // anything extra (duplicates) would arrive now
    yield* Fiber.interrupt(consumer);

    let mismatches = 0;
    for (const name of new Set([...server.keys(), ...seen.keys()])) {
      const expected = (server.get(name) ?? []).join(",");
      const actual = (seen.get(name) ?? []).join(",");
      if (expected !== actual) {
        mismatches += 1;
        if (mismatches <= 5) console.error(`MISMATCH ${name}\n  server:  ${expected}\n  watcher: ${actual}`);
      }
    }
    const seconds = (performance.now() - created) / 1000;
    const summary = {
      objects,
      changes: written,
      delivered,
      drops,
      listings: listed,
      problems,
      mismatches,
      reordered,
      setupSeconds: Number(((created - startedAt) / 1000).toFixed(2)),
      soakSeconds: Number(seconds.toFixed(2)),
      changesPerSecond: Math.round(written / seconds),
    };
    console.log(JSON.stringify(summary, null, 2));
    if (mismatches > 0 || reordered > 0 || delivered !== written || listed !== 1) {
      return yield* Effect.die(new Error(`SOAK FAILED: ${JSON.stringify(summary)}`));
    }
    console.log("SOAK PASSED: every object's event sequence matches the server's, with one listing");
  });

const program = Effect.gen(function* () {
  const backendName = yield* Config.String("SOAK_BACKEND").pipe(Config.withDefault("emulator"));
  const objects = yield* Config.Int("SOAK_OBJECTS").pipe(Config.withDefault(10_000));
  const changes = yield* Config.Int("SOAK_CHANGES").pipe(Config.withDefault(50_000));
  const dropEvery = yield* Config.Int("SOAK_DROP_EVERY").pipe(Config.withDefault(500));
  console.log(
    `soak: backend ${backendName}, ${objects} objects, ${changes} changes, a drop per ~${dropEvery} changes`,
  );
  if (backendName === "fake")
    return yield* Effect.flatMap(fakeBackend, (b) => soak(b, objects, changes, dropEvery));
  return yield* Effect.flatMap(emulatorBackend, (b) => soak(b, objects, changes, dropEvery)).pipe(
    Effect.provide(Emulated.layer(new Emulated.RequestLog(), { historySize: 100_000 })),
  );
});

await Effect.runPromise(
  program.pipe(Effect.scoped, Effect.provideService(References.MinimumLogLevel, "Error")),
);

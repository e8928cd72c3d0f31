// Soak test of the watcher (not part of the default test run):
//   node --conditions=@kopf/source packages/watcher/bench/soak.bench.ts
// Sizes come from the environment: SOAK_OBJECTS (10000), SOAK_CHANGES (50000), SOAK_DROP_EVERY
// (500: on average one dropped or broken stream per this many changes).
// 10,000 objects (default) are created, then a stream of changes (updates, deletions,
// re-creations) runs while open watch streams are dropped or broken at random moments. At the
// end, the sequence of events seen per object must equal the server's, exactly: nothing lost,
// nothing duplicated, nothing reordered, and no relisting was needed. Prints a summary and exits
// non-zero on any mismatch.
import type { RawBody } from "@kopf/structs";
import { Config, Effect, Fiber, Random, References, Stream } from "effect";
import * as Watcher from "../src/Watcher.ts";
import * as FakeCluster from "../test/fixtures/FakeCluster.ts";

const key = (body: RawBody) => body.metadata?.name ?? "?";

const program = Effect.gen(function* () {
  const objects = yield* Config.Int("SOAK_OBJECTS").pipe(Config.withDefault(10_000));
  const changes = yield* Config.Int("SOAK_CHANGES").pipe(Config.withDefault(50_000));
  const dropEvery = yield* Config.Int("SOAK_DROP_EVERY").pipe(Config.withDefault(500));
  const fake = yield* FakeCluster.make;
  const startedAt = performance.now();
  for (let i = 0; i < objects; i++) yield* fake.create(`obj-${i}`, { generation: 0 });
  const initial = fake.history.length;

  const seen = new Map<string, Array<string>>();
  let listed = 0;
  let delivered = 0;
  let problems = 0;
  const consumer = yield* Effect.forkChild(
    Stream.runForEach(
      Watcher.fromListWatch(
        fake,
        { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" },
        { pageSize: 500 },
      ),
      (item) =>
        Effect.sync(() => {
          if (item._tag === "Listed") listed += 1;
          if (item._tag === "Problem") problems += 1;
          if (item._tag === "Event" && item.type !== null) {
            delivered += 1;
            const list = seen.get(key(item.object)) ?? [];
            list.push(`${item.type}@${item.object.metadata?.resourceVersion}`);
            seen.set(key(item.object), list);
          }
        }),
    ),
  );
  while (listed === 0) yield* Effect.sleep(1);

  const alive = new Set(Array.from({ length: objects }, (_, i) => `obj-${i}`));
  const deleted: Array<string> = [];
  let drops = 0;
  for (let n = 0; n < changes; n++) {
    const roll = yield* Random.nextBetween(0, 1);
    if (roll < 0.05 && alive.size > 0) {
      const name = [...alive][yield* Random.nextIntBetween(0, alive.size - 1)] as string;
      alive.delete(name);
      deleted.push(name);
      yield* fake.remove(name);
    } else if (roll < 0.08 && deleted.length > 0) {
      const name = deleted.pop() as string;
      alive.add(name);
      yield* fake.create(name, { generation: n });
    } else if (alive.size > 0) {
      const name = `obj-${yield* Random.nextIntBetween(0, objects - 1)}`;
      if (alive.has(name)) yield* fake.update(name, { generation: n });
    }
    if ((yield* Random.nextIntBetween(0, dropEvery)) === 0) {
      drops += 1;
      yield* (yield* Random.nextBoolean)
        ? fake.dropWatches
        : fake.breakWatches(FakeCluster.failure("TransportError", "connection reset by the soak test"));
    }
    if (n % 100 === 0) yield* Effect.yieldNow;
  }
  const expectedTotal = fake.history.length - initial;
  const deadline = performance.now() + 60_000;
  while (delivered < expectedTotal && performance.now() < deadline) yield* Effect.sleep(10);
  yield* Effect.sleep(200); // anything extra (duplicates) would arrive now
  yield* Fiber.interrupt(consumer);

  const server = new Map<string, Array<string>>();
  for (const event of fake.history.slice(initial)) {
    const list = server.get(key(event.object)) ?? [];
    list.push(`${event.type}@${event.object.metadata?.resourceVersion}`);
    server.set(key(event.object), list);
  }
  let mismatches = 0;
  for (const name of new Set([...server.keys(), ...seen.keys()])) {
    const a = (server.get(name) ?? []).join(",");
    const b = (seen.get(name) ?? []).join(",");
    if (a !== b) {
      mismatches += 1;
      if (mismatches <= 5) console.error(`MISMATCH ${name}\n  server:  ${a}\n  watcher: ${b}`);
    }
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const summary = {
    objects,
    changes: expectedTotal,
    delivered,
    drops,
    watchRequests: fake.watches.length,
    listings: fake.lists.length,
    problems,
    mismatches,
    seconds: Number(seconds.toFixed(2)),
    eventsPerSecond: Math.round(delivered / seconds),
  };
  console.log(JSON.stringify(summary, null, 2));
  if (mismatches > 0 || delivered !== expectedTotal || listed !== 1) {
    return yield* Effect.die(new Error(`SOAK FAILED: ${JSON.stringify(summary)}`));
  }
  console.log("SOAK PASSED: every object's event sequence matches the server's, with one listing");
});

// A failure rejects the promise: Node reports it and exits non-zero.
await Effect.runPromise(program.pipe(Effect.provideService(References.MinimumLogLevel, "Error")));

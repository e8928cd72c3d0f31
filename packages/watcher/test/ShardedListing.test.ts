// Who filters by a shard selector: the decisions from the echoed shardInfo and from the probe
// (tables), the detection against the emulator with kube-apiserver's ShardedListAndWatch gate on
// and off, for a built-in type (echoed) and a custom resource (not echoed: the probe decides),
// and a watcher of some shard ranges, which sends the selector only where the server applies
// it and receives exactly the objects of its ranges either way.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import { Resource, ShardRange } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import * as ListWatch from "../src/ListWatch.ts";
import * as ShardedListing from "../src/ShardedListing.ts";
import * as Watcher from "../src/Watcher.ts";
import * as Emulated from "./fixtures/Emulated.ts";

const LOW = [{ start: 0n, end: 1n << 63n }];
const selector = ShardRange.selector(LOW);
const configmaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});
const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const gateOn = { featureGates: { ShardedListAndWatch: true } };

describe("ShardedListing.decide", () => {
  it.each([
    [{ metadata: { shardInfo: { selector } } }, "ServerSide"],
    [{ metadata: {} }, undefined],
    [
      {
        metadata: {
          shardInfo: {
            selector: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
          },
        },
      },
      "ClientSide",
    ],
  ] as const)("%j ⇒ %s", (list, tag) => {
    assert.strictEqual(ShardedListing.decide(selector, list)?._tag, tag);
  });
});

describe("ShardedListing.decideProbe", () => {
  it.each([
    [{ _tag: "Listed" }, "ClientSide"],
    [
      { _tag: "Failure", failure: { status: 500, message: `${ShardedListing.REJECTED}hexStart …` } },
      "ServerSide",
    ],
    [{ _tag: "Failure", failure: { status: 500, message: "etcdserver: request timed out" } }, undefined],
    [{ _tag: "Failure", failure: { status: 403, message: "forbidden" } }, undefined],
  ] as const)("%j ⇒ %s", (outcome, tag) => {
    assert.strictEqual(ShardedListing.decideProbe(outcome)?._tag, tag);
  });
});

/** Request lines with their query decoded. */
const decoded = (lines: ReadonlyArray<string>) =>
  lines.map((l) => decodeURIComponent(l.replaceAll("+", " ")));

const withKex = Effect.gen(function* () {
  const emulator = yield* KubeEmulator;
  yield* emulator.apply([Emulated.crd(), { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }]);
});

describe("ShardedListing.detect", () => {
  it.effect("server-side for a built-in type where the gate is on (the echo)", () =>
    Effect.flatMap(KubeApi, (api) => ShardedListing.detect(api, configmaps, selector, "default")).pipe(
      Effect.map((filtering) => assert.deepStrictEqual(filtering, { _tag: "ServerSide" })),
      Effect.provide(Emulated.layer(new Emulated.RequestLog(), gateOn)),
    ),
  );

  it.effect("client-side where the server ignores the selector", () =>
    Effect.flatMap(KubeApi, (api) => ShardedListing.detect(api, configmaps, selector, "default")).pipe(
      Effect.map((filtering) => assert.strictEqual(filtering._tag, "ClientSide")),
      Effect.provide(Emulated.layer(new Emulated.RequestLog())),
    ),
  );

  it.effect("server-side for a custom resource where the gate is on (no echo: the probe)", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      yield* withKex;
      const api = yield* KubeApi;
      const filtering = yield* ShardedListing.detect(api, kex, selector, "ns1");
      assert.deepStrictEqual(filtering, { _tag: "ServerSide" });
      assert.strictEqual(decoded(log.lines).filter((l) => l.includes(ShardedListing.PROBE)).length, 1);
    }).pipe(Effect.provide(Emulated.layer(log, gateOn)));
  });

  it.effect("client-side for a custom resource where the gate is off", () =>
    Effect.gen(function* () {
      yield* withKex;
      const api = yield* KubeApi;
      const filtering = yield* ShardedListing.detect(api, kex, selector, "ns1");
      assert.strictEqual(filtering._tag, "ClientSide");
    }).pipe(Effect.provide(Emulated.layer(new Emulated.RequestLog()))),
  );
});

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) {
    yield* TestClock.adjust(1);
    for (let j = 0; j < 50; j++) yield* Effect.yieldNow;
  }
});

/** A watcher of the low half: what it emits, and whether its requests carried the selector. */
const watchLowHalf = (gate: boolean) => {
  const log = new Emulated.RequestLog();
  return Effect.gen(function* () {
    yield* withKex;
    const api = yield* KubeApi;
    const create = (name: string) =>
      api.create(
        kex,
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name }, spec: {} },
        { namespace: "ns1" },
      );
    const before = yield* Effect.forEach(
      Array.from({ length: 12 }, (_, i) => `before-${i}`),
      create,
    );
    const seen: Array<Watcher.Item> = [];
    yield* Effect.forkScoped(
      Stream.runForEach(
        Watcher.fromListWatch(
          ListWatch.fromKubeApi(api, kex, "ns1"),
          { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" },
          { shards: LOW },
        ),
        (item) => Effect.sync(() => seen.push(item)),
      ),
    );
    yield* settle;
    const after = yield* Effect.forEach(
      Array.from({ length: 12 }, (_, i) => `after-${i}`),
      create,
    );
    yield* settle;
    const low = (objects: ReadonlyArray<{ metadata?: { name?: string; uid?: string } }>) =>
      objects
        .filter((o) => ShardRange.contains(LOW, ShardRange.fnv1a64(o.metadata?.uid ?? "")))
        .map((o) => o.metadata?.name);
    const emitted = (type: string | null) =>
      seen.flatMap((i) => (i._tag === "Event" && i.type === type ? [i.object.metadata?.name] : []));
    assert.deepStrictEqual(emitted(null).sort(), low(before).sort());
    assert.deepStrictEqual(emitted("ADDED").sort(), low(after).sort());
    assert.deepStrictEqual(
      seen.filter((i) => i._tag === "Problem"),
      [],
    );
    const carried = (lines: ReadonlyArray<string>) =>
      decoded(lines).filter((l) => l.includes(`shardSelector=${selector}`)).length;
    const watches = log.watches("/kopfexamples");
    const lists = log.lines.filter(
      (l) => l.startsWith("GET ") && l.includes("/kopfexamples") && !l.includes("watch=true"),
    );
    // The detection's one-item list and probe, then the listing and the watch.
    return { watches: carried(watches), allWatches: watches.length, listings: carried(lists.slice(2)) };
  }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log, gate ? gateOn : {})));
};

describe("Watcher with shard ranges", () => {
  it.effect("asks the server for its ranges where the gate is on", () =>
    Effect.map(watchLowHalf(true), ({ watches, allWatches, listings }) => {
      assert.strictEqual(watches, allWatches);
      assert.strictEqual(listings, 1);
    }),
  );

  it.effect("filters on its side where the server ignores the selector", () =>
    Effect.map(watchLowHalf(false), ({ watches, listings }) => {
      assert.strictEqual(watches, 0);
      assert.strictEqual(listings, 0);
    }),
  );
});

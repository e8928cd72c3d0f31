// Covers the watcher, the resource observer and the namespace observer end to end through the
// real KubeApi against the in-memory API emulator (in-process), in virtual time: list then
// watch; dropped streams resume without a relist and without losing or duplicating an event;
// a compacted history gives exactly one relist (objects deleted meanwhile reported as synthetic
// DELETED events); a quiet stream is reconnected by the watchdog;
// a CRD created and deleted mid-run starts and stops being served; namespace patterns follow
// namespaces created and deleted mid-run.

import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import { type JsonObject, type RawBody, Resource, Selector } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import { TestClock } from "effect/testing";
import * as Discovery from "../src/Discovery.ts";
import type * as Insights from "../src/Insights.ts";
import * as ListWatch from "../src/ListWatch.ts";
import * as NamespaceObserver from "../src/NamespaceObserver.ts";
import * as ResourceObserver from "../src/ResourceObserver.ts";
import * as Watcher from "../src/Watcher.ts";
import * as Emulated from "./fixtures/Emulated.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) {
    yield* TestClock.adjust(1);
    for (let j = 0; j < 50; j++) yield* Effect.yieldNow;
  }
});
const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });
const crds = Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  namespaced: false,
});

const withKex = Effect.gen(function* () {
  const emulator = yield* KubeEmulator;
  yield* emulator.apply([Emulated.crd(), { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }]);
});
const object = (name: string, spec: JsonObject = {}): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name },
  spec,
});

const collect = (options: Watcher.Options = {}) =>
  Effect.gen(function* () {
    const seen: Array<Watcher.Item> = [];
    const api = yield* KubeApi;
    const fiber = yield* Effect.forkScoped(
      Stream.runForEach(
        Watcher.fromListWatch(
          ListWatch.fromKubeApi(api, kex, "ns1"),
          { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" },
          options,
        ),
        (item) => Effect.sync(() => seen.push(item)),
      ),
    );
    yield* settle;
    return { seen, fiber };
  });

const events = (items: ReadonlyArray<Watcher.Item>) =>
  items.flatMap((i) =>
    i._tag === "Event"
      ? [`${i.type ?? "LIST"} ${i.object.metadata?.name} ${i.object.metadata?.resourceVersion}`]
      : [],
  );

describe("Watcher against the emulator", () => {
  it.effect("lists, watches, and resumes dropped streams without relisting, losing or duplicating", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      yield* withKex;
      const api = yield* KubeApi;
      const emulator = yield* KubeEmulator;
      yield* api.create(kex, object("a"), { namespace: "ns1" });
      const { seen } = yield* collect();
      const written: Array<string> = [];
      for (let round = 0; round < 4; round++) {
        const b = yield* api.create(kex, object(`b${round}`), { namespace: "ns1" });
        written.push(`ADDED b${round} ${b.metadata?.resourceVersion}`);
        yield* emulator.dropWatches;
        const a = yield* api.patch(
          kex,
          { namespace: "ns1", name: "a" },
          { type: "merge", body: { spec: { round } } },
        );
        written.push(`MODIFIED a ${a.metadata?.resourceVersion}`);
        yield* settle;
        yield* TestClock.adjust("1 second");
        yield* settle;
      }
      const deleted = yield* api.delete(kex, { namespace: "ns1", name: "b0" });
      written.push(`DELETED b0 ${deleted.metadata?.resourceVersion ?? "?"}`);
      yield* settle;
      const seenEvents = events(seen);
      assert.strictEqual(seenEvents[0]?.startsWith("LIST a "), true);
      assert.deepStrictEqual(seenEvents.slice(1, -1), written.slice(0, -1));
      assert.strictEqual(seenEvents.at(-1)?.startsWith("DELETED b0 "), true);
      assert.strictEqual(log.lists("/kopfexamples"), 1);
      assert.isAtLeast(log.watches("/kopfexamples").length, 5);
      assert.deepStrictEqual(
        seen.filter((i) => i._tag === "Problem"),
        [],
      );
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log)));
  });

  it.effect("a compacted history gives exactly one relist", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      yield* withKex;
      const api = yield* KubeApi;
      const emulator = yield* KubeEmulator;
      yield* api.create(kex, object("a"), { namespace: "ns1" });
      yield* api.create(kex, object("z"), { namespace: "ns1" });
      const { seen } = yield* collect();
      yield* emulator.dropWatches;
      yield* api.create(kex, object("b"), { namespace: "ns1" });
      yield* api.delete(kex, { namespace: "ns1", name: "z" }); // its DELETED event is lost with the history
      yield* emulator.compactHistory;
      yield* settle;
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("100 millis");
        yield* settle;
      }
      assert.strictEqual(log.lists("/kopfexamples"), 2);
      assert.deepStrictEqual(
        seen.flatMap((i) => (i._tag === "Problem" ? [i.reason] : [])),
        ["Gone"],
      );
      assert.deepStrictEqual(
        seen.map((i) =>
          i._tag === "Event"
            ? `${i.type ?? "LIST"} ${i.object.metadata?.name}${i.synthetic ? " (synthetic)" : ""}`
            : i._tag,
        ),
        ["LIST a", "LIST z", "Listed", "Problem", "LIST a", "LIST b", "DELETED z (synthetic)", "Listed"],
      );
      yield* api.create(kex, object("c"), { namespace: "ns1" });
      yield* settle;
      assert.strictEqual(events(seen).at(-1)?.startsWith("ADDED c "), true);
      assert.strictEqual(log.lists("/kopfexamples"), 2);
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log)));
  });

  it.effect("a quiet stream is reconnected by the watchdog, and bookmarks keep a stream alive", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      yield* withKex;
      const api = yield* KubeApi;
      const { seen } = yield* collect({ inactivityTimeout: 70 });
      yield* TestClock.adjust("69 seconds");
      yield* settle;
      assert.strictEqual(log.watches("/kopfexamples").length, 1);
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.strictEqual(log.watches("/kopfexamples").length, 2);
      assert.strictEqual(log.lists("/kopfexamples"), 1);
      assert.deepStrictEqual(
        seen.flatMap((i) => (i._tag === "Problem" ? [i.reason] : [])),
        ["Inactive"],
      );
      yield* api.create(kex, object("late"), { namespace: "ns1" });
      yield* settle;
      assert.strictEqual(events(seen).at(-1)?.startsWith("ADDED late "), true);
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log, { bookmarkInterval: "10 minutes" })));
  });

  it.effect("with the emulator's bookmarks every 60 s, a 70 s watchdog never fires", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      yield* withKex;
      const { seen } = yield* collect({ inactivityTimeout: 70 });
      for (let i = 0; i < 10; i++) {
        yield* TestClock.adjust("30 seconds");
        yield* settle;
      }
      assert.strictEqual(log.watches("/kopfexamples").length, 1);
      assert.deepStrictEqual(
        seen.filter((i) => i._tag === "Problem"),
        [],
      );
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log, { bookmarkInterval: "60 seconds" })));
  });
});

describe("Observers against the emulator", () => {
  it.effect("a CRD created mid-run is served, and stops being served when deleted", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      const api = yield* KubeApi;
      const emulator = yield* KubeEmulator;
      const selector = Result.getOrThrow(Selector.parse(["kopf.dev", "v1", "kopfexamples"]));
      const selectors: Insights.SelectorSets = {
        webhooks: [],
        indexed: [],
        watched: [selector],
        patched: [selector],
      };
      const observer = yield* ResourceObserver.make(api, (crd) => ListWatch.fromKubeApi(api, crd, null), {
        selectors,
      });
      const watched = Effect.map(SubscriptionRef.get(observer.observed), (o) =>
        o.insights.watched.map(Resource.toString),
      );
      yield* settle;
      assert.deepStrictEqual(yield* watched, []);
      yield* emulator.apply([Emulated.crd()]);
      yield* settle;
      assert.deepStrictEqual(yield* watched, ["kopfexamples.v1.kopf.dev"]);
      const served = (yield* SubscriptionRef.get(observer.observed)).insights.watched[0];
      assert.deepStrictEqual(served?.subresources, ["status"]);
      assert.strictEqual(served?.kind, "KopfExample");
      yield* api.delete(crds, { name: "kopfexamples.kopf.dev" });
      yield* settle;
      assert.deepStrictEqual(yield* watched, []);
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log)));
  });

  it.effect("discovery reads the emulator's built-in resources", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      const resources = yield* Discovery.scan(yield* KubeApi, new Set([""]));
      const names = resources.map(Resource.toString);
      assert.include(names, "namespaces.v1");
      assert.include(names, "pods.v1");
      const pods = resources.find((r) => r.plural === "pods");
      assert.strictEqual(pods?.namespaced, true);
      assert.include(pods?.verbs ?? [], "watch");
    }).pipe(Effect.provide(Emulated.layer(log)));
  });

  it.effect("namespace patterns follow namespaces created and deleted mid-run", () => {
    const log = new Emulated.RequestLog();
    return Effect.gen(function* () {
      const api = yield* KubeApi;
      const ns = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
      yield* api.create(namespaces, ns("team-a"));
      yield* api.create(namespaces, ns("team-x"));
      const observer = yield* NamespaceObserver.make(ListWatch.fromKubeApi(api, namespaces, null), {
        clusterwide: false,
        namespaces: ["team-*,!team-x", "default"],
      });
      const served = Effect.map(SubscriptionRef.get(observer.namespaces), (set) =>
        [...set].map(String).sort(),
      );
      assert.deepStrictEqual(yield* served, ["default", "team-a"]);
      yield* api.create(namespaces, ns("team-b"));
      yield* api.create(namespaces, ns("other"));
      yield* settle;
      assert.deepStrictEqual(yield* served, ["default", "team-a", "team-b"]);
      yield* api.delete(namespaces, { name: "team-a" });
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("10 seconds");
        yield* settle;
      }
      assert.deepStrictEqual(yield* served, ["default", "team-b"]);
    }).pipe(Effect.scoped, Effect.provide(Emulated.layer(log)));
  });
});

// Covers the watcher stream in virtual time against a scripted list/watch backend: list then
// watch from the list's resourceVersion with bookmarks; pagination; item kinds filled in;
// dropped and broken streams resume from the last resourceVersion without a relist and without
// losing or duplicating events; 410 Gone gives exactly one relist; a quiet stream is reconnected
// by the watchdog (and bookmarks keep it alive); other ERROR events, unknown event types and
// failed listings are values on the stream; backoff of repeated failures; metrics.

import { assert, describe, it } from "@effect/vitest";
import { KubeApi, type ListBody, type WatchEvent } from "@kopf/client";
import { OperatorSettings, Settings } from "@kopf/settings";
import { type RawBody, Resource } from "@kopf/structs";
import type * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Metric from "effect/Metric";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import type * as ListWatch from "../src/ListWatch.ts";
import type { RawWatchEvent } from "../src/ListWatch.ts";
import * as Watcher from "../src/Watcher.ts";
import * as FakeCluster from "./fixtures/FakeCluster.ts";

const target = { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" };

const settle = Effect.gen(function* () {
  for (let i = 0; i < 100; i++) yield* Effect.yieldNow;
});

/** Moves the TestClock on and lets what it woke run. */
const advance = (duration: Duration.Input) => Effect.andThen(TestClock.adjust(duration), settle);

/** Runs the watcher in the background, collecting what it emits. */
const start = (fake: FakeCluster.FakeCluster, options: Watcher.Options = {}, name = target) =>
  Effect.gen(function* () {
    const seen: Array<Watcher.Item> = [];
    const fiber = yield* Effect.forkChild(
      Stream.runForEach(Watcher.fromListWatch(fake, name, options), (item) =>
        Effect.sync(() => seen.push(item)),
      ),
    );
    yield* settle;
    return { seen, fiber };
  });

const events = (items: ReadonlyArray<Watcher.Item>) =>
  items.flatMap((item) =>
    item._tag === "Event"
      ? [`${item.type ?? "LIST"} ${item.object.metadata?.name} ${JSON.stringify(item.object.spec)}`]
      : [],
  );
const problems = (items: ReadonlyArray<Watcher.Item>) =>
  items.flatMap((item) => (item._tag === "Problem" ? [`${item.reason}:${item.recovery}`] : []));
const serverEvents = (fake: FakeCluster.FakeCluster, after = 0) =>
  fake.history
    .slice(after)
    .map((e) => `${e.type} ${e.object.metadata?.name} ${JSON.stringify(e.object.spec)}`);

describe("Watcher.fromListWatch", () => {
  it.effect("lists, emits Listed, then watches from the list's resourceVersion with bookmarks", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      yield* fake.create("a", { x: 1 });
      yield* fake.create("b", { x: 2 });
      const { seen } = yield* start(fake, { serverTimeout: 300 });
      assert.deepStrictEqual(events(seen), ['LIST a {"x":1}', 'LIST b {"x":2}']);
      assert.deepStrictEqual(seen[2], { _tag: "Listed", resourceVersion: "102" });
      assert.deepStrictEqual(fake.watches, [
        {
          resourceVersion: "102",
          allowWatchBookmarks: true,
          timeoutSeconds: 300,
          labelSelector: undefined,
          fieldSelector: undefined,
        },
      ]);
      const first = seen[0];
      assert.strictEqual(first?._tag === "Event" ? first.object.kind : undefined, "KopfExample");
      assert.strictEqual(first?._tag === "Event" ? first.object.apiVersion : undefined, "kopf.dev/v1");
      yield* fake.update("a", { x: 3 });
      yield* fake.remove("b");
      yield* settle;
      assert.deepStrictEqual(events(seen).slice(2), ['MODIFIED a {"x":3}', 'DELETED b {"x":2}']);
    }),
  );

  it.effect("an empty listing still emits Listed", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { seen } = yield* start(fake);
      assert.deepStrictEqual(seen, [{ _tag: "Listed", resourceVersion: "100" }]);
    }),
  );

  it.effect("follows continue tokens page by page and emits one Listed", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      for (const name of ["a", "b", "c", "d", "e"]) yield* fake.create(name);
      const { seen } = yield* start(fake, { pageSize: 2 });
      assert.strictEqual(fake.lists.length, 3);
      assert.deepStrictEqual(
        fake.lists.map((l) => l.limit),
        [2, 2, 2],
      );
      assert.deepStrictEqual(events(seen), ["LIST a {}", "LIST b {}", "LIST c {}", "LIST d {}", "LIST e {}"]);
      assert.strictEqual(seen.filter((i) => i._tag === "Listed").length, 1);
    }),
  );

  it.effect(
    "dropped streams resume from the last resourceVersion without relisting, losing or duplicating",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        yield* fake.create("a");
        const { seen } = yield* start(fake);
        for (let round = 0; round < 5; round++) {
          yield* fake.update("a", { round });
          yield* fake.create(`n${round}`);
          yield* fake.dropWatches;
          yield* fake.update("a", { round, after: "drop" }); // happens while disconnected
          yield* advance("1 second");
        }
        assert.strictEqual(fake.lists.length, 1);
        assert.deepStrictEqual(events(seen).slice(1), serverEvents(fake, 1));
        assert.strictEqual(problems(seen).length, 0);
        const requested = fake.watches.map((w) => w.resourceVersion);
        assert.deepStrictEqual(requested, ["101", "103", "106", "109", "112", "115"]);
      }),
  );

  it.effect("broken streams (transport errors) resume without relisting and report a problem", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { seen } = yield* start(fake);
      yield* fake.create("a");
      yield* settle;
      yield* fake.breakWatches(FakeCluster.failure("TransportError", "connection reset"));
      yield* fake.create("b");
      yield* settle;
      assert.strictEqual(fake.lists.length, 1);
      assert.deepStrictEqual(events(seen), ["ADDED a {}", "ADDED b {}"]);
      assert.deepStrictEqual(problems(seen), ["WatchFailed:resume"]);
      assert.deepStrictEqual(
        fake.watches.map((w) => w.resourceVersion),
        ["100", "101"],
      );
    }),
  );

  it.effect("a 410 Gone gives exactly one relist and a new Listed marker", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      yield* fake.create("a");
      const { seen } = yield* start(fake);
      yield* fake.dropWatches;
      yield* fake.create("b");
      yield* fake.compact;
      yield* settle;
      yield* TestClock.adjust("100 millis"); // the quiet stream's end: resume after the backoff
      yield* settle;
      assert.strictEqual(fake.lists.length, 1);
      yield* TestClock.adjust("100 millis"); // 410 Gone: relist after the backoff
      yield* settle;
      assert.strictEqual(fake.lists.length, 2);
      assert.deepStrictEqual(problems(seen), ["Gone:relist"]);
      assert.deepStrictEqual(events(seen), ["LIST a {}", "LIST a {}", "LIST b {}"]);
      assert.strictEqual(seen.filter((i) => i._tag === "Listed").length, 2);
      yield* fake.create("c");
      yield* advance("10 seconds");
      assert.strictEqual(fake.lists.length, 2);
      assert.deepStrictEqual(events(seen).slice(3), ["ADDED c {}"]);
    }),
  );

  it.effect("objects deleted while a relisting was due get synthetic DELETED events before Listed", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      yield* fake.create("a");
      yield* fake.create("b");
      const { seen } = yield* start(fake);
      yield* fake.create("c");
      yield* settle;
      fake.failNext("watch", FakeCluster.failure("Gone", "too old", 410)); // the history is lost
      yield* fake.dropWatches;
      yield* fake.remove("b");
      yield* fake.remove("c");
      for (let i = 0; i < 3; i++) {
        yield* advance("100 millis");
      }
      const tail = seen.slice(seen.findIndex((i) => i._tag === "Problem"));
      assert.deepStrictEqual(
        tail.map((i) =>
          i._tag === "Event"
            ? `${i.type ?? "LIST"} ${i.object.metadata?.name}${i.synthetic ? " (synthetic)" : ""}`
            : i._tag,
        ),
        ["Problem", "LIST a", "DELETED b (synthetic)", "DELETED c (synthetic)", "Listed"],
      );
      const synthetic = tail.find((i) => i._tag === "Event" && i.synthetic);
      assert.deepStrictEqual(synthetic?._tag === "Event" ? synthetic.object : undefined, {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name: "b", namespace: "ns1", uid: "uid-b", resourceVersion: "102" },
      });
    }),
  );

  it.effect("synthetic deletions can be turned off", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      yield* fake.create("a");
      const { seen } = yield* start(fake, { synthesizeDeletions: false });
      fake.failNext("watch", FakeCluster.failure("Gone", "too old", 410));
      yield* fake.dropWatches;
      yield* fake.remove("a");
      for (let i = 0; i < 3; i++) {
        yield* advance("100 millis");
      }
      assert.strictEqual(fake.lists.length, 2);
      assert.deepStrictEqual(events(seen), ["LIST a {}"]);
    }),
  );

  it.effect("a watch request answered with 410 status relists once", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      fake.failNext("watch", FakeCluster.failure("Gone", "too old", 410));
      const { seen } = yield* start(fake);
      yield* advance("100 millis");
      assert.strictEqual(fake.lists.length, 2);
      assert.deepStrictEqual(problems(seen), ["Gone:relist"]);
    }),
  );

  it.effect("the watchdog reconnects a quiet stream after the inactivity timeout, without relisting", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { seen } = yield* start(fake, { inactivityTimeout: 70 });
      yield* advance("69 seconds");
      assert.strictEqual(fake.watches.length, 1);
      yield* advance("1 second");
      assert.strictEqual(fake.watches.length, 2);
      assert.strictEqual(fake.lists.length, 1);
      assert.deepStrictEqual(problems(seen), ["Inactive:resume"]);
      assert.strictEqual(fake.openWatches(), 1);
      yield* fake.create("late");
      yield* settle;
      assert.deepStrictEqual(events(seen), ["ADDED late {}"]);
    }),
  );

  it.effect("the watchdog counts only time waiting for the stream, not a slow consumer's", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const seen: Array<Watcher.Item> = [];
      yield* Effect.forkChild(
        Stream.runForEach(
          Watcher.fromListWatch(fake, target, { inactivityTimeout: 70, bufferSize: 1 }),
          (item) =>
            Effect.sync(() => seen.push(item)).pipe(
              Effect.andThen(
                item._tag === "Event" && item.object.metadata?.name === "a"
                  ? Effect.sleep("100 seconds")
                  : Effect.void,
              ),
            ),
        ),
      );
      yield* settle;
      for (const name of ["a", "b", "c"]) yield* fake.create(name);
      yield* settle;
      // The consumer holds the first event for 100 s while the others wait in the watcher.
      yield* advance("100 seconds");
      assert.deepStrictEqual(events(seen), ["ADDED a {}", "ADDED b {}", "ADDED c {}"]);
      assert.deepStrictEqual(problems(seen), []);
      assert.strictEqual(fake.watches.length, 1);
      // The watcher waits again once it has handed "c" over: 70 s from then, not from its arrival.
      yield* advance("69 seconds");
      assert.strictEqual(fake.watches.length, 1);
      yield* advance("1 second");
      assert.strictEqual(fake.watches.length, 2);
      assert.deepStrictEqual(problems(seen), ["Inactive:resume"]);
    }),
  );

  it.effect("bookmarks keep a quiet stream alive, advance the resourceVersion, and are never emitted", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { seen } = yield* start(fake, { inactivityTimeout: 70 });
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("60 seconds");
        yield* fake.bookmark;
        yield* settle;
      }
      assert.strictEqual(fake.watches.length, 1);
      yield* fake.create("x");
      yield* fake.remove("x");
      yield* fake.bookmark;
      yield* settle;
      yield* fake.dropWatches;
      yield* settle;
      yield* advance("1 second");
      assert.strictEqual(fake.watches.at(-1)?.resourceVersion, "102");
      assert.deepStrictEqual(events(seen), ["ADDED x {}", "DELETED x {}"]);
      assert.strictEqual(
        seen.filter((i) => i._tag === "Event" && i.type === ("BOOKMARK" as never)).length,
        0,
      );
    }),
  );

  it.effect("other ERROR events and unknown types are values; the stream goes on", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { seen } = yield* start(fake);
      yield* fake.send({ type: "WEIRD", object: {} as RawBody });
      yield* fake.send({
        type: "ERROR",
        object: { kind: "Status", code: 500, message: "etcd hiccup" } as RawBody,
      });
      yield* settle;
      yield* advance("100 millis");
      assert.deepStrictEqual(problems(seen), ["UnknownEvent:continue", "ErrorEvent:relist"]);
      assert.strictEqual(fake.lists.length, 2);
      yield* fake.create("a");
      yield* settle;
      assert.deepStrictEqual(events(seen), ["ADDED a {}"]);
    }),
  );

  it.effect("the events of one chunk come out in order, with the problems among them where they were", () =>
    Effect.gen(function* () {
      const name = { resource: "chunk-test.v1.kopf.dev", namespace: "c1" };
      const object = (n: string, rv: string) =>
        ({ kind: "KopfExample", metadata: { name: n, resourceVersion: rv }, spec: {} }) as RawBody;
      const watches: Array<string | undefined> = [];
      // The first watch sends one chunk: two events, a problem the watch goes on after, two more
      // events, an ERROR that ends the watch, and an event after it that is not read.
      const chunk: ReadonlyArray<RawWatchEvent> = [
        { type: "ADDED", object: object("a", "2") },
        { type: "MODIFIED", object: object("a", "3") },
        { type: "WEIRD", object: {} as RawBody },
        { type: "ADDED", object: object("b", "4") },
        { type: "BOOKMARK", object: { metadata: { resourceVersion: "5" } } as RawBody },
        { type: "ERROR", object: { kind: "Status", code: 500, message: "etcd hiccup" } as RawBody },
        { type: "ADDED", object: object("c", "6") },
      ];
      const api: ListWatch.ListWatch = {
        list: () =>
          Effect.succeed({ kind: "KopfExampleList", metadata: { resourceVersion: "1" }, items: [] }),
        watch: (request) => {
          watches.push(request.resourceVersion);
          return watches.length === 1 ? Stream.fromArray(chunk) : Stream.never;
        },
      };
      const seen: Array<Watcher.Item> = [];
      yield* Effect.forkChild(
        Stream.runForEach(Watcher.fromListWatch(api, name, {}), (item) => Effect.sync(() => seen.push(item))),
      );
      yield* settle;
      assert.deepStrictEqual(
        seen.map((item) =>
          item._tag === "Event"
            ? `${item.type} ${item.object.metadata?.name}`
            : item._tag === "Problem"
              ? `${item.reason}:${item.recovery}`
              : item._tag,
        ),
        ["Listed", "ADDED a", "MODIFIED a", "UnknownEvent:continue", "ADDED b", "ErrorEvent:relist"],
      );
      const { events: counted } = yield* Effect.promise(() => import("../src/internal/watchMetrics.ts"));
      const count = (type: string) =>
        Metric.value(Metric.withAttributes(counted, { ...name, type })).pipe(Effect.map((s) => s.count));
      // Each event up to the ERROR counted once; the one after it was not read.
      assert.deepStrictEqual(
        [
          yield* count("ADDED"),
          yield* count("MODIFIED"),
          yield* count("WEIRD"),
          yield* count("BOOKMARK"),
          yield* count("ERROR"),
        ],
        [2, 1, 1, 1, 1],
      );
      yield* advance("1 second");
      // The relisting's watch resumes from the listing, not from the bookmark.
      assert.deepStrictEqual(watches, ["1", "1"]);
    }),
  );

  it.effect("failed listings are retried after a growing backoff", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      fake.failNext("list", FakeCluster.failure("ServerError", "boom", 500), 3);
      const { seen } = yield* start(fake, { reconnectBackoff: 1, maxBackoff: 10 });
      assert.strictEqual(fake.lists.length, 1);
      yield* advance("1 second");
      assert.strictEqual(fake.lists.length, 2);
      yield* advance("1999 millis");
      assert.strictEqual(fake.lists.length, 2);
      yield* advance("1 millis");
      assert.strictEqual(fake.lists.length, 3);
      yield* advance("4 seconds");
      assert.strictEqual(fake.lists.length, 4);
      assert.deepStrictEqual(problems(seen), ["ListFailed:relist", "ListFailed:relist", "ListFailed:relist"]);
      assert.deepStrictEqual(seen.at(-1), { _tag: "Listed", resourceVersion: "100" });
    }),
  );

  it.effect("watch requests that keep failing back off and then resume", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      fake.failNext("watch", FakeCluster.failure("TransportError", "refused"), 3);
      yield* start(fake, { reconnectBackoff: 1, maxBackoff: 2 });
      assert.strictEqual(fake.watches.length, 1);
      yield* advance("1 second");
      assert.strictEqual(fake.watches.length, 2);
      yield* advance("2 seconds");
      assert.strictEqual(fake.watches.length, 3);
      yield* advance("2 seconds");
      assert.strictEqual(fake.watches.length, 4);
      assert.strictEqual(fake.openWatches(), 1);
      assert.strictEqual(fake.lists.length, 1);
    }),
  );

  it.effect("defects of the client are problems too, and the stream goes on", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      let listDefects = 1;
      let watchDefects = 1;
      const faulty: typeof fake = {
        ...fake,
        list: (request) => (listDefects-- > 0 ? Effect.die(new Error("list bug")) : fake.list(request)),
        watch: (request) => (watchDefects-- > 0 ? Stream.die(new Error("watch bug")) : fake.watch(request)),
      };
      const { seen } = yield* start(faulty);
      for (let i = 0; i < 3; i++) {
        yield* advance("1 second");
      }
      assert.deepStrictEqual(problems(seen), ["ListFailed:relist", "WatchFailed:resume"]);
      const first = seen.find((i) => i._tag === "Problem");
      assert.include(first?._tag === "Problem" ? first.message : "", "list bug");
      yield* fake.create("a");
      yield* settle;
      assert.deepStrictEqual(events(seen), ["ADDED a {}"]);
    }),
  );

  it.effect("a watch request answered 429 is retried no sooner than its Retry-After", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      fake.failNext("watch", {
        ...FakeCluster.failure("TooManyRequests", "slow down", 429),
        retryAfterSeconds: 5,
      });
      yield* start(fake);
      assert.strictEqual(fake.watches.length, 1);
      yield* advance("4999 millis");
      assert.strictEqual(fake.watches.length, 1);
      yield* advance("1 millis");
      assert.strictEqual(fake.watches.length, 2);
      assert.strictEqual(fake.lists.length, 1);
    }),
  );

  it.effect("interrupting the consumer closes the open watch and stops all requests", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const { fiber } = yield* start(fake);
      assert.strictEqual(fake.openWatches(), 1);
      yield* Fiber.interrupt(fiber);
      assert.strictEqual(fake.openWatches(), 0);
      yield* advance("10 minutes");
      assert.strictEqual(fake.watches.length, 1);
    }),
  );

  it.effect("counts events, reconnects, relists, 410s and watchdog firings per resource and namespace", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const name = { resource: "metrics-test.v1.kopf.dev", namespace: "m1" };
      yield* fake.create("a");
      yield* start(fake, { inactivityTimeout: 70 }, name);
      yield* fake.create("b");
      yield* fake.bookmark;
      yield* settle;
      yield* fake.dropWatches;
      yield* settle;
      yield* advance("70 seconds");
      yield* fake.dropWatches;
      yield* fake.create("c"); // while disconnected, then the history is lost
      yield* fake.compact;
      yield* settle;
      yield* advance("1 second");
      yield* advance("1 second");
      const attrs = { resource: name.resource, namespace: name.namespace };
      const count = (metric: Metric.Metric<number, Metric.CounterState<number>>, extra = {}) =>
        Metric.value(Metric.withAttributes(metric, { ...attrs, ...extra })).pipe(Effect.map((s) => s.count));
      const {
        events: ev,
        reconnects,
        relists,
        gone,
        watchdog,
        lastEventAge,
        lastEventTimestamp,
      } = yield* Effect.promise(() => import("../src/internal/watchMetrics.ts"));
      assert.strictEqual(yield* count(ev, { type: "LIST" }), 4);
      assert.strictEqual(yield* count(ev, { type: "ADDED" }), 1);
      assert.strictEqual(yield* count(ev, { type: "BOOKMARK" }), 1);
      assert.strictEqual(yield* count(relists), 2);
      assert.strictEqual(yield* count(gone), 1);
      assert.strictEqual(yield* count(watchdog), 1);
      assert.strictEqual(yield* count(reconnects), 3);
      const age = yield* Metric.value(Metric.withAttributes(lastEventAge, attrs));
      assert.isAtLeast(age.value, 0);
      // The relisting after the compaction, on the TestClock (which starts at 0).
      const at = yield* Metric.value(Metric.withAttributes(lastEventTimestamp, attrs));
      assert.isAtLeast(at.value, 70);
      assert.isAtMost(at.value, 72);
    }),
  );
});

describe("Watcher.stream", () => {
  it.effect("watches through the KubeApi in the namespace, with the operator's watching settings", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      yield* fake.create("a");
      const calls: Array<string> = [];
      const api = Layer.mock(KubeApi, {
        list: (resource, options) => {
          calls.push(`list ${resource.plural} in ${options?.namespace}`);
          return fake.list(options ?? {}) as Effect.Effect<ListBody>;
        },
        watch: (resource, options) => {
          calls.push(`watch ${resource.plural} in ${options?.namespace} timeout ${options?.timeoutSeconds}`);
          return fake.watch({
            ...options,
            allowWatchBookmarks: options?.allowWatchBookmarks ?? false,
          }) as Stream.Stream<WatchEvent>;
        },
      });
      const settings = {
        ...Settings.defaults,
        watching: { ...Settings.defaults.watching, serverTimeout: 123 },
      };
      const resource = Resource.make({
        group: "kopf.dev",
        version: "v1",
        plural: "kopfexamples",
        namespaced: true,
      });
      const items = yield* Watcher.stream(resource, "ns1").pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.provide(api),
        Effect.provideService(OperatorSettings, settings),
      );
      assert.deepStrictEqual(
        items.map((i) => i._tag),
        ["Event", "Listed"],
      );
      assert.deepStrictEqual(calls, ["list kopfexamples in ns1", "watch kopfexamples in ns1 timeout 123"]);
    }),
  );
});

describe("Watcher.stream for cluster-scoped resources", () => {
  it.effect("watches cluster-wide whatever the namespace given", () =>
    Effect.gen(function* () {
      const fake = yield* FakeCluster.make;
      const namespaces: Array<string | null | undefined> = [];
      const api = Layer.mock(KubeApi, {
        list: (_resource, options) => {
          namespaces.push(options?.namespace);
          return fake.list(options ?? {}) as Effect.Effect<ListBody>;
        },
        watch: (_resource, options) => {
          namespaces.push(options?.namespace);
          return fake.watch({ ...options, allowWatchBookmarks: true }) as Stream.Stream<WatchEvent>;
        },
      });
      const things = Resource.make({ group: "kopf.dev", version: "v1", plural: "things", namespaced: false });
      yield* Watcher.stream(things, "ns1").pipe(Stream.take(1), Stream.runCollect, Effect.provide(api));
      assert.deepStrictEqual(namespaces.slice(0, 1), [null]);
    }),
  );
});

describe("Watcher.optionsFromSettings", () => {
  it("takes Kopf's watching settings (70 s watchdog, 0.1 s backoff, no server timeout)", () => {
    assert.deepStrictEqual(Watcher.optionsFromSettings(Settings.defaults), {
      inactivityTimeout: 70,
      serverTimeout: null,
      reconnectBackoff: 0.1,
    });
  });
  it("disables the watchdog for a non-positive inactivity timeout", () => {
    const settings = {
      ...Settings.defaults,
      watching: { ...Settings.defaults.watching, inactivityTimeout: 0, serverTimeout: 60 },
    };
    assert.deepStrictEqual(Watcher.optionsFromSettings(settings), {
      inactivityTimeout: null,
      serverTimeout: 60,
      reconnectBackoff: 0.1,
    });
  });
});

describe("Watcher.fillKind", () => {
  it.each([
    [
      { metadata: { name: "x" } },
      { kind: "KopfExample", apiVersion: "kopf.dev/v1", metadata: { name: "x" } },
    ],
    [
      { kind: "Other", apiVersion: "v9", metadata: {} },
      { kind: "Other", apiVersion: "v9", metadata: {} },
    ],
  ] as const)("fills what is missing from the list", (item, expected) => {
    assert.deepStrictEqual(
      Watcher.fillKind(item as RawBody, "KopfExampleList", "kopf.dev/v1"),
      expected as RawBody,
    );
  });
  it("leaves items alone when the list kind has no List suffix", () => {
    assert.deepStrictEqual(Watcher.fillKind({ metadata: {} }, "Weird", undefined), { metadata: {} });
  });
});

// Covers the resource observer in virtual time: the initial scan of only the needed groups into
// insights (with warnings), CRDs created and deleted mid-run rescanning only their group so that
// resources start and stop being served, a full rescan after each CRD listing, failed scans
// retried with backoff, rescans repeated until discovery catches up with a CRD event (both
// ways, for 10 s at most), 403 on the CRD watch (Kopf's warning, no more rescans), and
// scanning.disabled (no CRD watch at all).

import { assert, describe, it } from "@effect/vitest";
import { Resource, Selector } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import { TestClock } from "effect/testing";
import type * as Insights from "../src/Insights.ts";
import * as ResourceObserver from "../src/ResourceObserver.ts";
import * as FakeCluster from "./fixtures/FakeCluster.ts";
import * as FakeDiscovery from "./fixtures/FakeDiscovery.ts";
import * as LogCapture from "./fixtures/LogCapture.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 100; i++) yield* Effect.yieldNow;
});
const kex = Result.getOrThrow(Selector.parse(["kopf.dev", "v1", "kopfexamples"]));
const selectors: Insights.SelectorSets = { webhooks: [], indexed: [], watched: [kex], patched: [kex] };
const watched = (observer: ResourceObserver.ResourceObserver) =>
  Effect.map(SubscriptionRef.get(observer.observed), (o) => o.insights.watched.map(Resource.toString));

const kexGroup = (discovery: FakeDiscovery.FakeDiscovery) =>
  discovery.put("kopf.dev", "v1", [
    FakeDiscovery.resource("kopfexamples", "KopfExample", { singularName: "kopfexample" }),
    FakeDiscovery.resource("kopfexamples/status", "KopfExample"),
  ]);

describe("ResourceObserver.make", () => {
  it.effect("serves resources of CRDs created and deleted mid-run, rescanning only their group", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        const observer = yield* ResourceObserver.make(discovery, () => crds, { selectors });
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), []);
        assert.deepStrictEqual(discovery.calls, [
          ResourceObserver.defaultBackboneGroups.toSorted(),
          ResourceObserver.defaultBackboneGroups.toSorted(),
        ]);

        const seen: Array<ReadonlyArray<string>> = [];
        yield* Effect.forkScoped(
          Stream.runForEach(SubscriptionRef.changes(observer.observed), (o) =>
            Effect.sync(() => seen.push(o.insights.watched.map(Resource.toString))),
          ),
        );
        yield* settle;

        kexGroup(discovery);
        yield* crds.create("kopfexamples.kopf.dev", { group: "kopf.dev" });
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
        assert.deepStrictEqual(discovery.calls.at(-1), ["kopf.dev"]);
        const served = (yield* SubscriptionRef.get(observer.observed)).insights.watched[0];
        assert.deepStrictEqual(served?.subresources, ["status"]);

        discovery.drop("kopf.dev", "v1");
        yield* crds.remove("kopfexamples.kopf.dev");
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), []);
        assert.deepStrictEqual(seen.at(-2), ["kopfexamples.v1.kopf.dev"]);
        assert.deepStrictEqual(seen.at(-1), []);
        const cached = (yield* SubscriptionRef.get(observer.observed)).resources.map(Resource.toString);
        assert.include(cached, "namespaces.v1");
        assert.notInclude(cached, "kopfexamples.v1.kopf.dev");
      }),
    ),
  );

  it.effect("CRDs of groups no selector can match are not rescanned", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        yield* ResourceObserver.make(discovery, () => crds, { selectors });
        yield* settle;
        const before = discovery.calls.length;
        yield* crds.create("widgets.unrelated.example", { group: "unrelated.example" });
        yield* settle;
        assert.strictEqual(discovery.calls.length, before);
        yield* crds.create("kopfexamples.kopf.dev", { group: "kopf.dev" });
        yield* settle;
        assert.deepStrictEqual(discovery.calls.slice(before), [["kopf.dev"]]);
      }),
    ),
  );

  it.effect("a CRD created between the initial scan and the CRD listing is not missed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        yield* crds.create("kopfexamples.kopf.dev", { group: "kopf.dev" });
        const original = discovery.discover;
        let first = true;
        const racing = {
          discover: (options?: { readonly groups?: ReadonlyArray<string> | undefined }) =>
            Effect.tap(original(options), () =>
              Effect.sync(() => {
                if (first) kexGroup(discovery); // the CRD becomes served right after the first scan
                first = false;
              }),
            ),
        };
        const observer = yield* ResourceObserver.make(racing, () => crds, { selectors });
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
      }),
    ),
  );

  it.effect("a CRD served (or unlisted) by discovery only after its event is rescanned until it is", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        const observer = yield* ResourceObserver.make(discovery, () => crds, { selectors });
        yield* settle;
        const body = {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "kopfexamples.kopf.dev" },
          spec: {
            group: "kopf.dev",
            names: { plural: "kopfexamples" },
            versions: [{ name: "v1", served: true }],
          },
        };
        // A real API server: the ADDED event comes before discovery serves the kind.
        yield* crds.put("ADDED", body);
        yield* settle;
        yield* TestClock.adjust("1 second");
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), []);
        kexGroup(discovery); // discovery catches up, with no further CRD event
        yield* TestClock.adjust("200 millis");
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
        const scans = discovery.calls.length;
        yield* TestClock.adjust("20 seconds");
        yield* settle;
        assert.strictEqual(discovery.calls.length, scans, "no more rescans once served");

        // Deleted: discovery still lists it for a while after the DELETED event.
        yield* crds.put("DELETED", body);
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
        discovery.drop("kopf.dev", "v1");
        yield* TestClock.adjust("200 millis");
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), []);
      }),
    ),
  );

  it.effect("a CRD that never becomes served is rescanned for 10 seconds, then left as it is", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        const observer = yield* ResourceObserver.make(discovery, () => crds, { selectors });
        yield* settle;
        const before = discovery.calls.length;
        yield* crds.put("ADDED", {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "kopfexamples.kopf.dev" },
          spec: { group: "kopf.dev", names: { plural: "kopfexamples" }, versions: [{ name: "v1" }] },
        });
        for (let i = 0; i < 60; i++) {
          yield* TestClock.adjust("200 millis");
          yield* settle;
        }
        assert.strictEqual(discovery.calls.length - before, 51);
        assert.deepStrictEqual(yield* watched(observer), []);
      }),
    ),
  );

  it.effect("failed scans are retried with a backoff", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        kexGroup(discovery);
        discovery.failNext(2);
        const crds = yield* FakeCluster.make;
        const fiber = yield* Effect.forkScoped(ResourceObserver.make(discovery, () => crds, { selectors }));
        yield* settle;
        assert.strictEqual(discovery.calls.length, 1);
        yield* TestClock.adjust("1 second");
        yield* settle;
        assert.strictEqual(discovery.calls.length, 2);
        yield* TestClock.adjust("2 seconds");
        yield* settle;
        assert.isTrue(discovery.calls.length >= 3);
        const observer = yield* Fiber.join(fiber);
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
      }),
    ),
  );

  it.effect("logs the insights' warnings with Kopf's texts", () => {
    const logs = LogCapture.make();
    return Effect.gen(function* () {
      const discovery = FakeDiscovery.make();
      const crds = yield* FakeCluster.make;
      yield* ResourceObserver.make(discovery, () => crds, { selectors });
      yield* settle;
      assert.include(
        logs.lines,
        "WARN Unresolved resources cannot be served (try creating their CRDs): Selector(group='kopf.dev', version='v1', any_name='kopfexamples')",
      );
    }).pipe(Effect.scoped, Effect.provide(logs.layer));
  });

  it.effect("403 on the CRD watch warns and stops observing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        const crds = yield* FakeCluster.make;
        crds.failNext("list", FakeCluster.failure("Forbidden", "crds are forbidden", 403));
        const logs = LogCapture.make();
        const observer = yield* ResourceObserver.make(discovery, () => crds, { selectors }).pipe(
          Effect.provide(logs.layer),
        );
        yield* settle;
        assert.include(
          logs.lines,
          "WARN Not enough permissions to watch for resources: changes (creation/deletion/updates) will not be noticed; the resources are only refreshed on operator restarts.",
        );
        yield* TestClock.adjust("10 seconds");
        yield* settle;
        assert.strictEqual(crds.lists.length, 1);
        kexGroup(discovery);
        yield* crds.create("kopfexamples.kopf.dev", { group: "kopf.dev" });
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), []);
      }),
    ),
  );

  it.effect("with scanning disabled, only the initial scan is done", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const discovery = FakeDiscovery.make();
        kexGroup(discovery);
        const crds = yield* FakeCluster.make;
        const observer = yield* ResourceObserver.make(discovery, () => crds, {
          selectors,
          scanningDisabled: true,
        });
        yield* settle;
        assert.deepStrictEqual(yield* watched(observer), ["kopfexamples.v1.kopf.dev"]);
        assert.strictEqual(crds.lists.length, 0);
        assert.strictEqual(discovery.calls.length, 1);
      }),
    ),
  );
});

describe("ResourceObserver.mergeScan", () => {
  it("replaces only the rescanned group", () => {
    const a = Resource.make({ group: "a", version: "v1", plural: "x" });
    const b = Resource.make({ group: "b", version: "v1", plural: "y" });
    const b2 = Resource.make({ group: "b", version: "v2", plural: "y" });
    assert.deepStrictEqual(ResourceObserver.mergeScan([a, b], "b", [b2, a]), [a, b2]);
    assert.deepStrictEqual(ResourceObserver.mergeScan([a, b], null, [b2]), [b2]);
  });
});

// ShardWatching: which resources a sharded replica watches by shards (a table), and the watch
// following the ranges on the in-process emulator with the ShardedListAndWatch gate on and off:
// each set of ranges is announced, then listed, and only its objects are emitted.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Settings } from "@kopf/settings";
import { type RawBody, ShardRange } from "@kopf/structs";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import * as ShardWatching from "../src/ShardWatching.ts";

describe("ownShards", () => {
  it.each([
    ["auto", false, true],
    ["auto", true, false],
    ["own-shards", true, true],
    ["own-shards", false, true],
    ["all", false, false],
    ["all", true, false],
  ] as const)("%s with index handlers %s: by shards %s", (setting, indexed, expected) => {
    assert.strictEqual(ShardWatching.ownShards(setting, indexed), expected);
  });
});

const { configmaps, namespaces } = KopfRunner;
const HALF = 1n << 63n;
const LOW = [{ start: 0n, end: HALF }];
const HIGH = [{ start: HALF, end: ShardRange.SPACE }];
const hashOf = (object: RawBody) => ShardRange.fnv1a64(object.metadata?.uid ?? "");

describe("stream", () => {
  for (const gate of [false, true])
    it.live(`follows the ranges: announced, listed, only their objects (gate ${gate ? "on" : "off"})`, () =>
      Effect.gen(function* () {
        const api = yield* KubeApi;
        yield* api.create(namespaces, {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: "ns1" },
        });
        for (let i = 0; i < 20; i++)
          yield* api.create(
            configmaps,
            { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}`, namespace: "ns1" } },
            { namespace: "ns1" },
          );
        const ranges = yield* SubscriptionRef.make<ReadonlyArray<ShardRange.ShardRange>>([]);
        const items: Array<ShardWatching.Item> = [];
        const fiber = yield* Effect.forkScoped(
          Stream.runForEach(
            ShardWatching.stream(configmaps, "ns1", SubscriptionRef.changes(ranges)),
            (item) => Effect.sync(() => items.push(item)),
          ),
        );
        const listings = () => items.filter((item) => item._tag === "Listed").length;
        const until = (done: () => boolean) =>
          Effect.gen(function* () {
            while (!done()) yield* Effect.sleep(5);
          }).pipe(Effect.timeout(5000));
        yield* until(() => items.length === 1); // no ranges: announced, nothing watched
        yield* Effect.sleep(50);
        assert.deepStrictEqual(items, [{ _tag: "Shards", ranges: [] }]);

        yield* SubscriptionRef.set(ranges, LOW);
        yield* until(() => listings() === 1);
        yield* SubscriptionRef.set(ranges, LOW); // the same ranges: the watch goes on
        yield* SubscriptionRef.set(ranges, HIGH);
        yield* until(() => listings() === 2);
        yield* Fiber.interrupt(fiber);
        // All of them, with the one the server adds to a namespace (its root CA bundle).
        const uids = (yield* api.list(configmaps, { namespace: "ns1" })).items.map(hashOf);
        assert.strictEqual(uids.length, 21);

        const tags = items.map((item) => (item._tag === "Event" ? "Event" : item._tag));
        const low = uids.filter((hash) => ShardRange.contains(LOW, hash)).length;
        assert.deepStrictEqual(tags, [
          "Shards",
          "Shards",
          ...Array.from({ length: low }, () => "Event"),
          "Listed",
          "Shards",
          ...Array.from({ length: uids.length - low }, () => "Event"),
          "Listed",
        ]);
        let current: ReadonlyArray<ShardRange.ShardRange> = [];
        for (const item of items) {
          if (item._tag === "Shards") current = item.ranges;
          if (item._tag === "Event") assert.isTrue(ShardRange.contains(current, hashOf(item.object)));
        }
      }).pipe(
        Effect.scoped,
        Effect.provide(
          Layer.mergeAll(
            Clusters.inProcess(gate ? { featureGates: { ShardedListAndWatch: true } } : {}),
            Settings.layer({}),
          ),
        ),
      ),
    );
});

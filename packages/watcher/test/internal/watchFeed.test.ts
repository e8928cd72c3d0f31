// Covers the watcher's feeding of one received chunk: its events are offered in order, another
// shard's object only moves the resourceVersion on, the first action other than reading on ends
// the chunk (what follows is neither offered nor counted), and the objects offered are the ones
// the synthetic deletions after a relisting know of.

import { assert, describe, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import type * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Metric from "effect/Metric";
import * as Queue from "effect/Queue";
import * as KnownObjects from "../../src/internal/knownObjects.ts";
import * as WatchFeed from "../../src/internal/watchFeed.ts";
import * as WatchMetrics from "../../src/internal/watchMetrics.ts";
import type { RawWatchEvent } from "../../src/ListWatch.ts";
import type * as WatchState from "../../src/WatchState.ts";

const config: WatchState.Config = { reconnectBackoffMillis: 100, maxBackoffMillis: 30_000 };
const object = (name: string, rv: string): RawBody => ({
  apiVersion: "v1",
  kind: "Thing",
  metadata: { name, uid: `uid-${name}`, resourceVersion: rv },
});
const added = (name: string, rv: string): RawWatchEvent => ({ type: "ADDED", object: object(name, rv) });

const feeding = (attributes: { resource: string; namespace: string }) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<WatchState.Output<RawBody>, Cause.Done>();
    const known = KnownObjects.make();
    const feed = WatchFeed.make({
      config,
      queue,
      known,
      metrics: WatchMetrics.bind(attributes),
      // The shard that keeps every object but `b`.
      shard: { keep: (body) => body.metadata?.name !== "b" },
      name: attributes.resource,
    });
    const offered = Effect.map(Queue.clear(queue), (items) =>
      items.map((item) => (item._tag === "Event" ? `${item.type} ${item.object.metadata?.name}` : item._tag)),
    );
    return { feed, known, offered };
  });

describe("WatchFeed.feedChunk", () => {
  it.effect("offers a chunk's events in order; another shard's object moves the resourceVersion on", () =>
    Effect.gen(function* () {
      const { feed, offered } = yield* feeding({ resource: "feed-a", namespace: "n" });
      const action = yield* feed.feedChunk([added("a", "2"), added("b", "3"), added("c", "4")], 1_000);
      assert.strictEqual(action, undefined);
      assert.deepStrictEqual(yield* offered, ["ADDED a", "ADDED c"]);
      assert.strictEqual(feed.state().resourceVersion, "4");
      const counted = yield* Metric.value(
        Metric.withAttributes(WatchMetrics.events, { resource: "feed-a", namespace: "n", type: "ADDED" }),
      );
      assert.strictEqual(counted.count, 3);
      const at = yield* Metric.value(
        Metric.withAttributes(WatchMetrics.lastEventTimestamp, { resource: "feed-a", namespace: "n" }),
      );
      assert.strictEqual(at.value, 1);
    }),
  );

  it.effect("ends the chunk at the first action other than reading on", () =>
    Effect.gen(function* () {
      const { feed, known, offered } = yield* feeding({ resource: "feed-b", namespace: "n" });
      const gone: RawWatchEvent = {
        type: "ERROR",
        object: { kind: "Status", code: 410, reason: "Expired", message: "too old" } as RawBody,
      };
      const action = yield* feed.feedChunk([added("a", "2"), gone, added("c", "4")], 1_000);
      assert.strictEqual(action?._tag, "Relist");
      assert.deepStrictEqual(yield* offered, ["ADDED a", "Problem"]);
      const counted = yield* Metric.value(
        Metric.withAttributes(WatchMetrics.events, { resource: "feed-b", namespace: "n", type: "ADDED" }),
      );
      assert.strictEqual(counted.count, 1);
      // `a` was offered, so a relisting that does not list it again reports it gone; `c` never was.
      known.listing();
      assert.deepStrictEqual(
        known.vanished().map((body) => body.metadata?.name),
        ["a"],
      );
    }),
  );

  it.effect("a chunk larger than the stream's buffer waits for room and loses nothing", () =>
    Effect.gen(function* () {
      const queue = yield* Queue.bounded<WatchState.Output<RawBody>, Cause.Done>(2);
      const feed = WatchFeed.make({
        config,
        queue,
        known: null,
        metrics: WatchMetrics.bind({ resource: "feed-c", namespace: "n" }),
        shard: undefined,
        name: "feed-c",
      });
      const names = ["a", "b", "c", "d", "e"];
      const feeding = yield* Effect.forkChild(
        feed.feedChunk(
          names.map((name, i) => added(name, String(i + 2))),
          1_000,
        ),
      );
      const taken: Array<string> = [];
      for (let i = 0; i < names.length; i++) {
        const item = yield* Queue.take(queue);
        taken.push(item._tag === "Event" ? (item.object.metadata?.name ?? "") : item._tag);
      }
      assert.strictEqual(yield* Fiber.join(feeding), undefined);
      assert.deepStrictEqual(taken, names);
    }),
  );
});

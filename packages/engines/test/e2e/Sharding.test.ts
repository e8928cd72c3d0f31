import { KubeApi } from "@kopf/client";
import { ShardRange } from "@kopf/structs";
import { Applying, Clusters } from "@kopf/testing";
import { ShardedListing } from "@kopf/watcher";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import * as Sharding from "../../src/Sharding.ts";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";

const LEASE = { leaseDuration: 4, renewDeadline: 3, retryPeriod: 0.5 };

const handled = (log: ReadonlyArray<Replicas.Invocation>) => new Set(log.map((entry) => entry.name));

const untilHandled = (log: ReadonlyArray<Replicas.Invocation>, names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 600 && !names.every((n) => handled(log).has(n)); i++)
      yield* Effect.sleep("50 millis");
  });

describe("sharding on a cluster", () => {
  it("two replicas split the objects by their ranges; after a graceful stop one handles all", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const program = Effect.gen(function* () {
      yield* Applying.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }, H.crd()]);
      const log: Array<Replicas.Invocation> = [];
      const received = { r1: [] as Array<string>, r2: [] as Array<string> };
      const r1 = yield* Replicas.start("r1", log, { sharding: true, received: received.r1 });
      const r2 = yield* Replicas.start("r2", log, { sharding: true, received: received.r2 });
      expect(yield* Replicas.settled(2)).toBeLessThan(20);
      const shares = yield* Replicas.ring;

      const first = Array.from({ length: 20 }, (_, i) => `first-${i}`);
      const uids = new Map<string, string>();
      for (const name of first) uids.set(name, (yield* H.create(name)).metadata?.uid ?? "");
      yield* untilHandled(log, first);
      yield* Effect.sleep("500 millis");
      expect([...handled(log)].sort()).toEqual([...first].sort());
      expect(log.length).toBe(first.length);
      for (const entry of log) {
        const owner = Sharding.leaseName("kopf", entry.replica);
        const hash = ShardRange.fnv1a64(uids.get(entry.name) ?? "");
        expect(ShardRange.contains(shares.get(owner) ?? [], hash)).toBe(true);
      }
      expect(new Set(log.map((entry) => entry.replica))).toEqual(new Set(["r1", "r2"]));

      // Each replica watches its own shards: where the server filters by shard (v1.36+ with the
      // gate), every object reached exactly one replica's watch; elsewhere both received it.
      const filtering = yield* Effect.flatMap(KubeApi, (api) =>
        ShardedListing.detect(api, H.resource, ShardRange.selector([ShardRange.WHOLE]), "ns1"),
      );
      const reached = [...uids.values()].map(
        (uid) => [received.r1, received.r2].filter((seen) => seen.includes(uid)).length,
      );
      expect(reached).toEqual(first.map(() => (filtering._tag === "ServerSide" ? 1 : 2)));

      yield* r2.stop;
      expect(yield* Replicas.settled(1)).toBeLessThanOrEqual(LEASE.retryPeriod + 5);
      const second = Array.from({ length: 10 }, (_, i) => `second-${i}`);
      for (const name of second) yield* H.create(name);
      yield* untilHandled(log, second);
      yield* Effect.sleep("500 millis");
      expect(log.filter((entry) => entry.name.startsWith("second-")).map((entry) => entry.replica)).toEqual(
        second.map(() => "r1"),
      );
      expect(log.length).toBe(first.length + second.length);
      expect(Replicas.overlaps(log, yield* Clock.currentTimeMillis)).toBe(0);
      yield* r1.stop;
    });
    await Replicas.onCluster(cluster.context, LEASE, program);
  }, 120_000);
});

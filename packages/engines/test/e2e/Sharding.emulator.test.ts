/**
 * Sharding, replicas in one process on the in-process emulator in virtual time: each replica
 * keeps its member Lease (labelled with the ring, holding its ranges as a shardSelector); every
 * object is handled by exactly one replica; a replica cut off from the API (as a SIGKILLed
 * process) stops at its renew deadline and its ranges are taken over after its lease expired
 * (≤ lease duration + retry period); replicas joining and leaving gracefully hand ranges over
 * without any object's handlers running on two replicas at once, and without re-running
 * finished handlers; watching only its own shards (the default without indices), a replica
 * receives only its share of the objects when the server filters by shard; with `auto`, a
 * resource with `on.index` handlers is watched whole, so its index is complete on every replica.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import type { Index } from "@kopf/registry";
import { Resource, ShardRange } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as LeaseRecord from "../../src/LeaseRecord.ts";
import * as PeeringCrds from "../../src/PeeringCrds.ts";
import * as Sharding from "../../src/Sharding.ts";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";

const PEERINGS = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  kind: "KopfPeering",
  namespaced: true,
  subresources: ["status"],
});

const members = Effect.flatMap(KubeApi, (api) =>
  api.list(LeaseRecord.LEASES, { namespace: "ns1", labelSelector: `${Sharding.RING_LABEL}=kopf` }),
).pipe(Effect.map((list) => list.items));

type Everything = { readonly everything: Index<string, string> };

const handledBy = (log: ReadonlyArray<Replicas.Invocation>) => {
  const by = new Map<string, Array<string>>();
  for (const entry of log) by.set(entry.name, [...(by.get(entry.name) ?? []), entry.replica]);
  return by;
};

describe("sharding", () => {
  it.effect("every object handled once, by one replica; a cut-off replica's ranges are taken over", () =>
    H.run(() =>
      Effect.gen(function* () {
        const log: Array<Replicas.Invocation> = [];
        const replicas = [];
        for (const name of ["r1", "r2", "r3"])
          replicas.push(yield* Replicas.start(name, log, { sharding: true }));
        yield* H.settle(5);

        const leases = yield* members;
        assert.strictEqual(leases.length, 3);
        const covered = ShardRange.normalize(
          leases.flatMap((lease) => {
            const text =
              ((lease.metadata?.annotations ?? {}) as Record<string, string>)[Sharding.SHARDS_ANNOTATION] ??
              "";
            const parsed = ShardRange.parse(text);
            return Result.isSuccess(parsed) ? parsed.success.ranges : [];
          }),
        );
        assert.deepStrictEqual(covered, [ShardRange.WHOLE]);
        for (const lease of leases) assert.strictEqual(LeaseRecord.fromLease(lease).leaseDurationSeconds, 15);

        const names = Array.from({ length: 30 }, (_, i) => `o${i}`);
        for (const name of names.slice(0, 15)) yield* H.create(name);
        yield* Replicas.until(() => handledBy(log).size >= 15);
        const before = handledBy(log);
        assert.strictEqual(before.size, 15);
        for (const who of before.values()) assert.strictEqual(who.length, 1);
        assert.isAbove(new Set([...before.values()].flat()).size, 1); // the work is shared

        // r1 loses the API; objects created now in its ranges wait until its lease expired.
        const [r1, r2, r3] = replicas as [Replicas.Replica, Replicas.Replica, Replicas.Replica];
        r1.cut.value = true;
        const cutAt = yield* Clock.currentTimeMillis;
        for (const name of names.slice(15)) yield* H.create(name);
        yield* Replicas.until(() => handledBy(log).size === 30, 30);
        const took = ((yield* Clock.currentTimeMillis) - cutAt) / 1000;
        assert.isAtMost(took, 15 + 2 + 1);
        const after = handledBy(log);
        assert.strictEqual(after.size, 30);
        for (const [name, who] of after) {
          assert.strictEqual(who.length, 1, `${name} handled by ${who.join(", ")}`);
          if (names.indexOf(name) >= 15) assert.notStrictEqual(who[0], "r1");
        }
        assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);
        yield* Replicas.stopAll([r1, r2, r3]);
      }),
    ),
  );

  for (const watch of ["auto", "all"] as const)
    it.effect(
      `scaling 2 → 4 → 1 with slow handlers (watching ${watch === "all" ? "all" : "own shards"}): no object's handlers overlap, none re-run`,
      () =>
        H.run(
          () =>
            Effect.gen(function* () {
              const log: Array<Replicas.Invocation> = [];
              const running: Array<Replicas.Replica> = [];
              const start = (name: string) =>
                Effect.map(Replicas.start(name, log, { sharding: true, seconds: 3 }), (replica) => {
                  running.push(replica);
                  return replica;
                });
              yield* start("s1");
              yield* start("s2");
              yield* H.settle(5);
              let created = 0;
              const createSome = (count: number) =>
                Effect.gen(function* () {
                  for (let i = 0; i < count; i++) yield* H.create(`x${created++}`);
                });
              yield* createSome(10);
              yield* H.settle(1);
              yield* start("s3");
              yield* createSome(10);
              yield* start("s4");
              yield* H.settle(2);
              yield* createSome(10);
              yield* H.settle(3);
              // Scale down to one, gracefully, while handlers run.
              const leaving = running.filter((replica) => replica.name !== "s3");
              yield* createSome(10);
              yield* Replicas.stopAll(leaving);
              yield* createSome(5);
              yield* Replicas.until(() => handledBy(log).size === created, 60);
              const by = handledBy(log);
              assert.strictEqual(by.size, created);
              for (const [name, who] of by)
                assert.strictEqual(who.length, 1, `${name} handled by ${who.join(", ")}`);
              assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);
              assert.deepStrictEqual((yield* members).length, 1);
              yield* Replicas.stopAll(running.filter((replica) => replica.name === "s3"));
              assert.deepStrictEqual((yield* members).length, 0);
            }),
          { scaling: { watch } },
        ),
    );

  for (const gate of [false, true])
    it.effect(
      `watching own shards (ShardedListAndWatch ${gate ? "on" : "off"}): each object handled once; the traffic split ${gate ? "by the server" : "on the clients"}`,
      () =>
        H.run(
          () =>
            Effect.gen(function* () {
              const log: Array<Replicas.Invocation> = [];
              const received = new Map<string, Array<string>>();
              const replicas = [];
              for (const name of ["w1", "w2", "w3"]) {
                const seen: Array<string> = [];
                received.set(name, seen);
                replicas.push(yield* Replicas.start(name, log, { sharding: true, received: seen }));
              }
              yield* H.settle(5);
              for (const seen of received.values()) seen.length = 0;

              const names = Array.from({ length: 30 }, (_, i) => `w${i}`);
              for (const name of names) yield* H.create(name);
              yield* Replicas.until(() => handledBy(log).size === names.length, 30);
              yield* H.settle(2);
              const by = handledBy(log);
              assert.strictEqual(by.size, names.length);
              for (const [name, who] of by)
                assert.strictEqual(who.length, 1, `${name} handled by ${who.join(", ")}`);
              assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);

              // What each replica's watch received of the 30 objects.
              const uids = new Map<string, number>();
              for (const seen of received.values())
                for (const uid of new Set(seen)) uids.set(uid, (uids.get(uid) ?? 0) + 1);
              assert.strictEqual(uids.size, names.length);
              const shares = [...received.values()].map((seen) => new Set(seen).size);
              if (gate) {
                // The server sends each object to its owner only: 30 objects over the 3 replicas.
                for (const [, count] of uids) assert.strictEqual(count, 1);
                assert.strictEqual(
                  shares.reduce((a, b) => a + b, 0),
                  names.length,
                );
                for (const share of shares) assert.isBelow(share, names.length);
              } else {
                // Without the feature, every replica receives everything and filters it.
                for (const share of shares) assert.strictEqual(share, names.length);
              }
              yield* Replicas.stopAll(replicas);
            }),
          { scaling: { watch: "own-shards" } },
          gate ? { featureGates: { ShardedListAndWatch: true } } : {},
        ),
    );

  for (const watch of ["auto", "own-shards"] as const)
    it.effect(
      `an index with watch ${watch}: ${watch === "auto" ? "complete on every replica" : "each replica's share"}`,
      () =>
        H.run(
          () =>
            Effect.gen(function* () {
              const log: Array<Replicas.Invocation> = [];
              const sizes: Array<{
                readonly replica: string;
                readonly size: number;
                readonly created: number;
              }> = [];
              let created = 0;
              const received = new Map<string, Array<string>>();
              const replicas = [];
              for (const name of ["i1", "i2"]) {
                const registry = Replicas.recordingRegistry(name, log);
                registry.on.index(H.RES, function everything({ name: object }) {
                  return { all: object };
                });
                registry.on.create(H.RES, function sized(ctx) {
                  const size = (ctx as unknown as Everything).everything.get("all")?.size ?? 0;
                  sizes.push({ replica: name, size, created });
                });
                const seen: Array<string> = [];
                received.set(name, seen);
                replicas.push(yield* Replicas.start(name, log, { sharding: true, registry, received: seen }));
              }
              yield* H.settle(5);
              for (const seen of received.values()) seen.length = 0;
              for (let i = 0; i < 20; i++) {
                created++;
                yield* H.create(`i${i}`);
                yield* H.settle(0.5);
              }
              yield* Replicas.until(() => handledBy(log).size === created, 30);
              assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);
              for (const who of handledBy(log).values()) assert.strictEqual(who.length, 1);
              assert.strictEqual(new Set(sizes.map((entry) => entry.replica)).size, 2);
              const uids = new Set([...received.values()].flat());
              const reached = [...uids].map(
                (uid) => [...received.values()].filter((seen) => seen.includes(uid)).length,
              );
              if (watch === "auto") {
                // The indexed resource is watched whole: every handler sees every object indexed.
                for (const entry of sizes) assert.strictEqual(entry.size, entry.created);
                assert.deepStrictEqual(
                  reached,
                  [...uids].map(() => 2),
                );
              } else {
                // Watched by shards: each replica's index holds its share only.
                for (const entry of sizes) assert.isAtMost(entry.size, entry.created);
                assert.isTrue(sizes.some((entry) => entry.size < entry.created));
                assert.deepStrictEqual(
                  reached,
                  [...uids].map(() => 1),
                );
              }
              yield* Replicas.stopAll(replicas);
            }),
          { scaling: { watch } },
          { featureGates: { ShardedListAndWatch: true } },
        ),
    );

  it.effect("replicas peer as one operator: one shared presence record, no pause between them", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* PeeringCrds.apply;
        const emulator = yield* KubeEmulator;
        yield* emulator.apply([PeeringCrds.peeringObject("default", "ns1")]);
        const log: Array<Replicas.Invocation> = [];
        const replicas = [];
        for (const name of ["p1", "p2"])
          replicas.push(
            yield* Replicas.start(name, log, { sharding: true, standalone: false, peeringName: "default" }),
          );
        yield* H.settle(6);
        for (const name of ["q0", "q1", "q2", "q3", "q4", "q5"]) yield* H.create(name);
        yield* Replicas.until(() => handledBy(log).size === 6, 20);
        assert.strictEqual(handledBy(log).size, 6);
        assert.isFalse(H.logged(lines, "Pausing operations"));
        const peering = yield* Effect.flatMap(KubeApi, (api) =>
          api.get(PEERINGS, { namespace: "ns1", name: "default" }),
        );
        assert.deepStrictEqual(Object.keys((peering.status ?? {}) as object), ["ns1/kopf"]);
        yield* Replicas.stopAll(replicas);
      }),
    ),
  );
});

/**
 * Leader election end to end on the cluster KOPF_TEST_CLUSTER names — the in-process emulator in
 * the default suite, kube-apiserver v1.36.3 in `npm run test:real` — in real time, with short
 * Leases (4 s duration, 3 s renew deadline, 0.5 s retry period): two replicas, one leader handles
 * everything; a graceful stop hands the Lease over within about a retry period; a leader cut
 * off from the API (as a SIGKILLed process) is replaced once its Lease expired; no object is
 * handled twice or on two replicas at once.
 */
import { Applying, Clusters } from "@kopf/testing";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";

const LEASE = { leaseDuration: 4, renewDeadline: 3, retryPeriod: 0.5 };

const handledBy = (log: ReadonlyArray<Replicas.Invocation>, name: string) =>
  log.filter((entry) => entry.name === name).map((entry) => entry.replica);

const waitHandled = (log: ReadonlyArray<Replicas.Invocation>, name: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 300 && handledBy(log, name).length === 0; i++) yield* Effect.sleep("50 millis");
  });

describe("leader election on a cluster", () => {
  it("one leader; a graceful stop and a kill hand the Lease over in time; nothing runs twice", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const program = Effect.gen(function* () {
      yield* Applying.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }, H.crd()]);
      const log: Array<Replicas.Invocation> = [];
      const a = yield* Replicas.start("a", log, { leaderElection: true });
      expect(yield* Replicas.heldBy("a")).toBeLessThan(10);
      const b = yield* Replicas.start("b", log, { leaderElection: true });
      yield* Effect.sleep("1 second");
      yield* H.create("e1");
      yield* waitHandled(log, "e1");
      yield* Effect.sleep("500 millis");
      expect(handledBy(log, "e1")).toEqual(["a"]);

      // A graceful stop releases the Lease: b takes over within about a retry period.
      yield* Effect.forkScoped(a.stop);
      const graceful = yield* Replicas.heldBy("b");
      expect(graceful).toBeLessThanOrEqual(LEASE.retryPeriod + 2);
      yield* H.create("e2");
      yield* waitHandled(log, "e2");
      expect(handledBy(log, "e2")).toEqual(["b"]);

      // A kill: b can neither renew nor release; a restarted a takes over once the Lease expired.
      const restarted = yield* Replicas.start("a-restarted", log, { leaderElection: true, identity: "a" });
      yield* Effect.sleep("1 second");
      b.cut.value = true;
      yield* Effect.forkScoped(b.stop);
      const killed = yield* Replicas.heldBy("a");
      expect(killed).toBeLessThanOrEqual(LEASE.leaseDuration + LEASE.retryPeriod + 2);
      yield* H.create("e3");
      yield* waitHandled(log, "e3");
      yield* Effect.sleep("500 millis");
      expect(handledBy(log, "e3")).toEqual(["a-restarted"]);
      expect(Replicas.overlaps(log, yield* Clock.currentTimeMillis)).toBe(0);
      expect(new Set(log.map((entry) => entry.name)).size).toBe(log.length);
      yield* restarted.stop;
    });
    await Replicas.onCluster(cluster.context, LEASE, program);
  }, 120_000);
});

/**
 * Scale-out chaos on a cluster in real time (the real tier's project "chaos-real", on a fresh
 * real kube-apiserver; `Clusters.selected()` picks the cluster). The replicas are operators in
 * this one process (test/fixtures/Replicas.ts), each with its own identity and its own view of the
 * API, on short Leases (duration 4 s, renew deadline 3 s, retry period 1 s):
 *
 * - 3 replicas with sharding start while `CHAOS_REAL_OBJECTS` (300) objects are being created over
 *   40 s; each create handler takes 0.25 s;
 * - mid-run, one replica is killed hard: its view of the API is cut at once (every request fails,
 *   its watches end), so from that instant it can neither write a result, renew its Lease nor
 *   release its ranges — what a SIGKILLed process leaves behind — and then its fibers are
 *   interrupted (its handlers stop where they are); it is not a child process sent SIGKILL;
 * - it is restarted under the same identity; then 3 → 5 → 2 replicas, gracefully (the leaving
 *   ones stopped as on SIGTERM).
 *
 * Every handler invocation is recorded as (replica instance, object, start, end). Pass: every
 * object handled; 0 overlapping executions of one object's handler on two replicas; a handler runs
 * again only for objects whose earlier run was on the killed instance (finished but its result not
 * stored, or cut off by the kill; both counted and printed), none because of a graceful step; the
 * others cover the killed replica's ranges within lease duration + retry period + a 3 s margin
 * for real-time scheduling on a loaded machine. The figures are printed.
 */
import { Applying, Clusters } from "@kopf/testing";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import * as Sharding from "../../src/Sharding.ts";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";
import { createOver, fleet, perReplica, reruns, ringCoverage, whole } from "../fixtures/ScaleOutChaos.ts";

const OBJECTS = Number(process.env.CHAOS_REAL_OBJECTS ?? 300);
const LEASE = { leaseDuration: 4, renewDeadline: 3, retryPeriod: 1 };
const HANDLER_SECONDS = 0.25;
const CREATION_SECONDS = 40;
const MARGIN = 3;

const seconds = Effect.map(Clock.currentTimeMillis, (millis) => millis / 1000);

describe("scale-out chaos in real time", () => {
  it(`sharding: ${OBJECTS} objects, a kill and restart, 3 → 5 → 2 replicas`, async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const program = Effect.gen(function* () {
      yield* Applying.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }, H.crd()]);
      const log: Array<Replicas.Invocation> = [];
      const { replicas, start, kill } = fleet(log, HANDLER_SECONDS);
      const created = { count: 0 };
      const stages: Array<string> = [];
      const stage = (what: string, took: number) =>
        Effect.sync(() =>
          stages.push(`${what} ${took.toFixed(2)} s (${created.count} created, ${log.length} runs)`),
        );
      yield* createOver(OBJECTS, CREATION_SECONDS, created);
      for (const name of ["r1", "r2", "r3"]) yield* start(name);
      const formed = yield* Replicas.settled(3);
      yield* stage("3 formed", formed);

      // Mid-run: objects still being created, and r2 has handled some.
      yield* Replicas.within(
        Effect.sync(() => created.count >= OBJECTS / 3 && log.some((entry) => entry.replica === "r2")),
        60,
      );
      const killedAt = yield* seconds;
      yield* kill("r2");
      const takeover = yield* Replicas.within(
        Effect.map(ringCoverage(Sharding.leaseName("kopf", "r2")), whole),
        LEASE.leaseDuration + LEASE.retryPeriod + 30,
      );
      yield* stage("kill of r2 taken over", takeover);

      yield* start("r2-restarted", "r2");
      // Its old Lease may still name ranges: settled once it is back and has handled something.
      const rejoined = yield* Replicas.within(
        Effect.zipWith(
          Replicas.ringSettled(3),
          Effect.sync(() => log.some((entry) => entry.replica === "r2-restarted")),
          (a, b) => a && b,
        ),
      );
      yield* stage("r2 restarted, 3 settled, handling", rejoined);
      yield* Effect.sleep("2 seconds");
      yield* start("r4");
      yield* start("r5");
      const grew = yield* Replicas.settled(5);
      yield* stage("5 settled", grew);
      // Objects keep arriving: the five handle some before three leave.
      yield* Effect.sleep("4 seconds");
      const leaving = ["r1", "r3", "r4"];
      const stopping = yield* seconds;
      yield* Effect.forEach(leaving, (name) => (replicas.get(name) as Replicas.Replica).stop, {
        concurrency: "unbounded",
        discard: true,
      });
      for (const name of leaving) replicas.delete(name);
      const shrank = (yield* seconds) - stopping + (yield* Replicas.settled(2));
      yield* stage("3 stopped, 2 settled", shrank);

      const done = yield* Replicas.within(
        Effect.sync(() => created.count === OBJECTS && reruns(log, "r2").handled === OBJECTS),
        120,
      );
      yield* stage("all handled", done);
      // Late re-runs, if any, get the time to show.
      yield* Effect.sleep(`${LEASE.leaseDuration + LEASE.retryPeriod} seconds`);
      const counts = reruns(log, "r2");
      const overlapping = Replicas.overlaps(log, yield* Clock.currentTimeMillis);
      const killedRuns = log.filter((entry) => entry.replica === "r2");
      const rerun = new Set(log.filter((entry) => entry.replica !== "r2").map((entry) => entry.name));
      const finishedUnstored = killedRuns.filter(
        (entry) => rerun.has(entry.name) && (entry.end ?? Number.POSITIVE_INFINITY) < killedAt * 1000,
      ).length;
      console.log(
        `real-time sharding chaos: ${OBJECTS} objects, ${counts.handled} handled, ${log.length} invocations ` +
          `(${JSON.stringify(perReplica(log))}); overlaps ${overlapping}; re-runs after the kill ` +
          `${counts.afterKill} (${finishedUnstored} had finished on r2 before their result was stored, ` +
          `${counts.afterKill - finishedUnstored} were cut off by the kill), unexplained ${counts.unexplained}; ` +
          `r2's ranges covered by the others ${takeover.toFixed(2)} s after the kill ` +
          `(bound ${LEASE.leaseDuration + LEASE.retryPeriod} s + ${MARGIN} s); stages: ${stages.join("; ")}`,
      );
      expect(counts.handled).toBe(OBJECTS);
      expect(overlapping).toBe(0);
      expect(counts.unexplained).toBe(0);
      expect(takeover).toBeLessThanOrEqual(LEASE.leaseDuration + LEASE.retryPeriod + MARGIN);
      expect([formed, rejoined, grew, shrank].every(Number.isFinite)).toBe(true);
      yield* Effect.forEach([...replicas.values()], (replica) => replica.stop, {
        concurrency: "unbounded",
        discard: true,
      });
    });
    await Replicas.onCluster(cluster.context, LEASE, program);
  }, 240_000);
});

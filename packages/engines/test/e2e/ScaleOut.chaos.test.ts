/**
 * Chaos for scaled-out operators (`npm run chaos`), with isolated operators in one process on
 * the in-process emulator in virtual time (each replica has its own view of the API, which a
 * kill cuts before the replica is stopped, so it can neither write nor release anything):
 *
 * - sharding: 3 replicas start while `CHAOS_OBJECTS` (3,000) objects are being created; one is
 *   killed mid-run and restarted under the same identity; then 3 → 5 → 2 replicas, gracefully;
 * - leader election: 2 replicas; the leader is killed, restarted, then the new leader stops
 *   gracefully.
 *
 * Every handler invocation is recorded as (replica instance, object, start, end). Pass: every
 * object handled; 0 overlapping executions of one object's handler on two replicas; handlers
 * run again only for objects whose earlier run was on the killed instance (its result not
 * stored, or cut off by the kill), none after graceful steps; takeover of the killed replica's
 * share within lease duration + retry period. The figures are printed.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Sharding from "../../src/Sharding.ts";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";
import { createOver, fleet, perReplica, reruns, ringCoverage, whole } from "../fixtures/ScaleOutChaos.ts";

const OBJECTS = Number(process.env.CHAOS_OBJECTS ?? 3000);
const HANDLER_SECONDS = 0.5;
const LEASE_DURATION = 15;
const RETRY_PERIOD = 2;

const seconds = Effect.map(Clock.currentTimeMillis, (millis) => millis / 1000);

describe("scale-out chaos", () => {
  it.effect(`sharding: ${OBJECTS} objects, a kill and restart, 3 → 5 → 2 replicas`, () =>
    H.run(() =>
      Effect.gen(function* () {
        const log: Array<Replicas.Invocation> = [];
        const { replicas, start, kill } = fleet(log, HANDLER_SECONDS);
        const created = { count: 0 };
        yield* createOver(OBJECTS, 100, created);
        for (const name of ["r1", "r2", "r3"]) yield* start(name);
        yield* H.settle(30, 0.25);

        // Kill r2: it can no longer reach the API, then it is stopped without releasing anything.
        const killedAt = yield* seconds;
        yield* kill("r2");
        let covered = 0;
        const lease = Sharding.leaseName("kopf", "r2");
        while (!whole(yield* ringCoverage(lease)) && covered <= 60) {
          yield* H.settle(0.25, 0.25);
          covered = (yield* seconds) - killedAt;
        }
        yield* H.settle(25 - covered, 0.25);
        yield* start("r2-restarted", "r2");
        yield* H.settle(20, 0.25);
        yield* start("r4");
        yield* start("r5");
        yield* H.settle(25, 0.25);
        const leaving = ["r1", "r3", "r4"].map((name) => replicas.get(name) as Replicas.Replica);
        yield* Replicas.stopAll(leaving);
        for (const name of ["r1", "r3", "r4"]) replicas.delete(name);
        yield* Replicas.until(() => created.count === OBJECTS && reruns(log, "r2").handled === OBJECTS, 600);
        const counts = reruns(log, "r2");
        const overlapping = Replicas.overlaps(log, yield* Clock.currentTimeMillis);
        console.log(
          `sharding chaos: ${OBJECTS} objects, ${counts.handled} handled, ${log.length} invocations ` +
            `(${JSON.stringify(perReplica(log))}); overlaps ${overlapping}; ` +
            `re-runs after the kill ${counts.afterKill}, unexplained ${counts.unexplained}; ` +
            `the killed replica's share covered by the others after ${covered.toFixed(2)} s`,
        );
        assert.strictEqual(counts.handled, OBJECTS);
        assert.strictEqual(overlapping, 0);
        assert.strictEqual(counts.unexplained, 0);
        assert.isAtMost(covered, LEASE_DURATION + RETRY_PERIOD);
        yield* Replicas.stopAll([...replicas.values()]);
      }),
    ),
  );

  it.effect(
    `leader election: ${Math.ceil(OBJECTS / 3)} objects, the leader killed, restarted, then stopped`,
    () =>
      H.run(() =>
        Effect.gen(function* () {
          const objects = Math.ceil(OBJECTS / 3);
          const log: Array<Replicas.Invocation> = [];
          const start = (instance: string, identity = instance) =>
            Replicas.start(instance, log, { leaderElection: true, identity, seconds: HANDLER_SECONDS });
          const holder = Replicas.holder;
          const created = { count: 0 };
          yield* createOver(objects, 60, created);
          const a = yield* start("a");
          yield* H.settle(3, 0.25);
          const b = yield* start("b");
          yield* H.settle(15, 0.25);
          assert.strictEqual(yield* holder, "a");

          a.cut.value = true;
          const killedAt = yield* seconds;
          yield* Effect.forkScoped(a.stop);
          while ((yield* holder) !== "b" && (yield* seconds) - killedAt < 60) yield* H.settle(0.25, 0.25);
          const killFailover = (yield* seconds) - killedAt;
          const restarted = yield* start("a-restarted", "a");
          yield* H.settle(10, 0.25);

          const stoppedAt = yield* seconds;
          yield* Effect.forkScoped(b.stop);
          while ((yield* holder) !== "a" && (yield* seconds) - stoppedAt < 60) yield* H.settle(0.25, 0.25);
          const gracefulFailover = (yield* seconds) - stoppedAt;
          yield* Replicas.until(() => created.count === objects && reruns(log, "a").handled === objects, 600);
          const counts = reruns(log, "a");
          const overlapping = Replicas.overlaps(log, yield* Clock.currentTimeMillis);
          console.log(
            `leader-election chaos: ${objects} objects, ${counts.handled} handled, ${log.length} invocations; ` +
              `overlaps ${overlapping}; re-runs after the kill ${counts.afterKill}, unexplained ${counts.unexplained}; ` +
              `failover after the kill ${killFailover.toFixed(2)} s, after the graceful stop ${gracefulFailover.toFixed(2)} s`,
          );
          assert.strictEqual(counts.handled, objects);
          assert.strictEqual(overlapping, 0);
          assert.strictEqual(counts.unexplained, 0);
          assert.isAtMost(killFailover, LEASE_DURATION + RETRY_PERIOD);
          assert.isAtMost(gracefulFailover, RETRY_PERIOD + 0.5);
          yield* Replicas.stopAll([restarted]);
        }),
      ),
  );
});

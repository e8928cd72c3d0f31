/**
 * Leader election with warm standby, two replicas in one process on the in-process emulator in
 * virtual time: the first takes the Lease (client-go's record: holder, duration, MicroTime
 * times, transitions); the standby watches but runs no handler; when the leader is cut off
 * from the API (as a SIGKILLed or partitioned process), it stops handling at the renew deadline
 * and the standby takes over once the lease expired on its own clock (≤ lease duration + retry
 * period), handling what was created meanwhile without relisting; a graceful stop releases the
 * Lease so the standby takes over within a retry period. No object's handler runs on both.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as LeaseRecord from "../../src/LeaseRecord.ts";
import * as H from "../fixtures/Harness.ts";
import * as Replicas from "../fixtures/Replicas.ts";

const MICROTIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const lease = Effect.flatMap(KubeApi, (api) =>
  api.get(LeaseRecord.LEASES, { namespace: "ns1", name: "kopf" }),
);

/** The API with the Lease's updates applied at once but answered a second later; `pending` meanwhile. */
const lateLeaseReplies =
  (pending: { value: boolean }) =>
  (api: KubeApi["Service"]): KubeApi["Service"] => ({
    ...api,
    patch: (resource, location, patch, options) =>
      resource.plural === LeaseRecord.LEASES.plural
        ? Effect.tap(api.patch(resource, location, patch, options), () =>
            Effect.sync(() => {
              pending.value = true;
            }).pipe(
              Effect.andThen(Effect.sleep("1 second")),
              Effect.ensuring(
                Effect.sync(() => {
                  pending.value = false;
                }),
              ),
            ),
          )
        : api.patch(resource, location, patch, options),
  });

const handled = (log: ReadonlyArray<Replicas.Invocation>, name: string) =>
  log.filter((entry) => entry.name === name).map((entry) => entry.replica);

describe("leader election", () => {
  it.effect("the holder handles, the standby waits warm; a cut-off leader is replaced after expiry", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const log: Array<Replicas.Invocation> = [];
        const a = yield* Replicas.start("a", log, { leaderElection: true });
        yield* H.settle(3);
        const b = yield* Replicas.start("b", log, { leaderElection: true });
        yield* H.settle(3);

        const first = yield* lease;
        const spec = first.spec as Record<string, unknown>;
        assert.strictEqual(spec.holderIdentity, "a");
        assert.strictEqual(spec.leaseDurationSeconds, 15);
        assert.strictEqual(spec.leaseTransitions, 0);
        assert.match(String(spec.renewTime), MICROTIME);
        assert.match(String(spec.acquireTime), MICROTIME);

        yield* H.create("e1");
        yield* H.settle(2);
        assert.deepStrictEqual(handled(log, "e1"), ["a"]);

        // The leader loses the API: it stops at the renew deadline, b takes over after expiry.
        a.cut.value = true;
        yield* H.create("e2");
        const fenced = yield* Replicas.until(() =>
          H.logged(lines, "Standing by: the lease ns1/kopf was not renewed"),
        );
        assert.isAtMost(fenced, 10.1);
        const takeover = yield* Replicas.until(() => handled(log, "e2").length > 0);
        assert.isAtMost(fenced + takeover, 15 + 2 + 0.5);
        assert.isAtLeast(fenced + takeover, 10);
        assert.deepStrictEqual(handled(log, "e2"), ["b"]);
        const second = (yield* lease).spec as Record<string, unknown>;
        assert.strictEqual(second.holderIdentity, "b");
        assert.strictEqual(second.leaseTransitions, 1);

        // Back on the API, the old leader stays a standby; nothing ran twice or at once.
        a.cut.value = false;
        yield* H.create("e3");
        yield* H.settle(5);
        assert.deepStrictEqual(handled(log, "e3"), ["b"]);
        assert.deepStrictEqual(handled(log, "e1"), ["a"]);
        assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);
        yield* Replicas.stopAll([a, b]);
      }),
    ),
  );

  it.effect("a graceful stop releases the lease: the standby takes over within a retry period", () =>
    H.run(() =>
      Effect.gen(function* () {
        const log: Array<Replicas.Invocation> = [];
        const a = yield* Replicas.start("a", log, { leaderElection: true, seconds: 1 });
        yield* H.settle(3);
        const b = yield* Replicas.start("b", log, { leaderElection: true, seconds: 1 });
        yield* H.settle(3);
        yield* H.create("e1");
        yield* H.settle(0.5);
        assert.deepStrictEqual(handled(log, "e1"), ["a"]);

        // Stopped while e1's handler runs: it finishes and is stored before the lease is released.
        yield* Effect.forkScoped(a.stop);
        const released = yield* Replicas.until(() => {
          return log.some((entry) => entry.name === "e1" && entry.end !== undefined);
        });
        assert.isAtMost(released, 1);
        yield* H.create("e2");
        const takeover = yield* Replicas.until(() => handled(log, "e2").length > 0);
        assert.isAtMost(takeover, 2 + 0.5);
        assert.deepStrictEqual(handled(log, "e2"), ["b"]);
        assert.deepStrictEqual(handled(log, "e1"), ["a"]);
        const spec = (yield* lease).spec as Record<string, unknown>;
        assert.strictEqual(spec.holderIdentity, "b");
        assert.strictEqual(Replicas.overlaps(log, yield* Clock.currentTimeMillis), 0);
        yield* Replicas.stopAll([b]);
      }),
    ),
  );

  it.effect(
    "a stop that cuts a renewal short (applied, its reply still on the way) still releases the lease",
    () =>
      H.run((lines) =>
        Effect.gen(function* () {
          const log: Array<Replicas.Invocation> = [];
          const pending = { value: false };
          const a = yield* Replicas.start("a", log, {
            leaderElection: true,
            through: lateLeaseReplies(pending),
          });
          yield* H.settle(3);
          yield* Replicas.start("b", log, { leaderElection: true });
          yield* H.settle(3);
          assert.strictEqual(((yield* lease).spec as Record<string, unknown>).holderIdentity, "a");

          // A renewal is written; a is stopped before its reply arrives, so it knows a stale version.
          const renewing = yield* Replicas.until(() => pending.value, 10);
          assert.isAtMost(renewing, 2.1);
          yield* Effect.forkScoped(a.stop);
          const takeover = yield* Replicas.until(() =>
            H.logged(lines, "Leading: acquired the lease ns1/kopf as b"),
          );
          // Within the standby's retry period (2 s) after the release's own late reply (1 s), not
          // after the whole lease duration (15 s) as when the stale release is given up.
          assert.isAtMost(takeover, 1 + 2 + 0.5);
          assert.isTrue(
            H.logged(lines, "Released the lease ns1/kopf (on a second try, at its current version)."),
          );
          const spec = (yield* lease).spec as Record<string, unknown>;
          assert.strictEqual(spec.holderIdentity, "b");
          assert.strictEqual(spec.leaseTransitions, 1);
        }),
      ),
  );

  it.effect(
    "a stop that cuts a takeover short (applied, its reply still on the way) releases the lease too",
    () =>
      H.run((lines) =>
        Effect.gen(function* () {
          const log: Array<Replicas.Invocation> = [];
          const pending = { value: false };
          const a = yield* Replicas.start("a", log, { leaderElection: true });
          yield* H.settle(3);
          const b = yield* Replicas.start("b", log, {
            leaderElection: true,
            through: lateLeaseReplies(pending),
          });
          yield* H.settle(3);

          // a hands over; b's takeover is written, but b is stopped before it hears so: it never led.
          yield* Effect.forkScoped(a.stop);
          const taking = yield* Replicas.until(() => pending.value, 10);
          assert.isAtMost(taking, 2.1);
          assert.strictEqual(((yield* lease).spec as Record<string, unknown>).holderIdentity, "b");
          const c = yield* Replicas.start("c", log, { leaderElection: true });
          yield* H.settle(0.5);
          yield* Effect.forkScoped(b.stop);
          const takeover = yield* Replicas.until(() =>
            H.logged(lines, "Leading: acquired the lease ns1/kopf as c"),
          );
          // Within c's retry period (2 s), not after the whole lease duration (15 s) that b's
          // takeover, never released, would hold it.
          assert.isAtMost(takeover, 2 + 0.5);
          yield* H.settle(1);
          assert.isTrue(
            H.logged(lines, "Released the lease ns1/kopf (on a second try, at its current version)."),
          );
          assert.isFalse(H.logged(lines, "Leading: acquired the lease ns1/kopf as b"));
          assert.strictEqual(((yield* lease).spec as Record<string, unknown>).holderIdentity, "c");
          yield* Replicas.stopAll([c]);
        }),
      ),
  );

  it.effect("timers run only on the leader, and move with the lead", () =>
    H.run(() =>
      Effect.gen(function* () {
        const ticks: Array<string> = [];
        const log: Array<Replicas.Invocation> = [];
        yield* H.create("t1");
        const a = yield* Replicas.start("a", log, {
          leaderElection: true,
          registry: Replicas.tickingRegistry("a", ticks),
        });
        yield* H.settle(3);
        const b = yield* Replicas.start("b", log, {
          leaderElection: true,
          registry: Replicas.tickingRegistry("b", ticks),
        });
        yield* H.settle(5);
        assert.isAbove(ticks.length, 3);
        assert.deepStrictEqual(new Set(ticks), new Set(["a:t1"]));
        ticks.length = 0;
        yield* Replicas.stopAll([a]);
        yield* H.settle(5);
        assert.isAbove(ticks.length, 1);
        assert.deepStrictEqual(new Set(ticks), new Set(["b:t1"]));
        yield* Replicas.stopAll([b]);
      }),
    ),
  );
});

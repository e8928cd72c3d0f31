/**
 * One presence in one peering object (docs/behaviour/peering.md#presence-records): `touch` merge-patches the own record in Kopf's
 * format (`priority`, `lifetime`, `lastseen` with microseconds and `+00:00`), removes it with
 * lifetime 0, and answers `false` for a missing object; the keep-alive writes at once and
 * removes the record when interrupted; the observation reports the verdicts of the object's
 * events (first `mandatory`); target keys are unique per resource and namespace.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as PeeringCrds from "../src/PeeringCrds.ts";
import * as Presence from "../src/Presence.ts";
import * as H from "./fixtures/Harness.ts";

const PEERINGS = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  namespaced: true,
});
const target: Presence.Target = { resource: PEERINGS, namespace: "ns1" };
const me = { identity: "me", name: "default", priority: 7, lifetime: 60, stealth: false, mandatory: false };

const setup = Effect.andThen(
  PeeringCrds.apply,
  Effect.flatMap(KubeEmulator, (emulator) => emulator.apply([PeeringCrds.peeringObject("default", "ns1")])),
);

const status = Effect.flatMap(KubeApi, (api) =>
  api.get(PEERINGS, { namespace: "ns1", name: "default" }),
).pipe(
  Effect.map((body) => (body.status ?? {}) as Record<string, any>),
  Effect.orDie,
);

const write = (records: Record<string, unknown>) =>
  Effect.flatMap(KubeApi, (api) =>
    api.patch(PEERINGS, { namespace: "ns1", name: "default" }, { type: "merge", body: { status: records } }),
  ).pipe(Effect.orDie);

describe("Presence", () => {
  it.each([
    [{ resource: PEERINGS, namespace: "ns1" }, "kopfpeerings.v1.kopf.dev@ns1"],
    [{ resource: PEERINGS, namespace: null }, "kopfpeerings.v1.kopf.dev@"],
    [
      {
        resource: Resource.make({
          group: "zalando.org",
          version: "v1",
          plural: "kopfpeerings",
          namespaced: true,
        }),
        namespace: "ns1",
      },
      "kopfpeerings.v1.zalando.org@ns1",
    ],
  ] as const)("keyOf %j is %s", (t, key) => {
    assert.strictEqual(Presence.keyOf(t), key);
  });

  it.effect("touch writes the record in Kopf's format, and removes it with lifetime 0", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setup;
        assert.isTrue(yield* Presence.touch(target, me));
        const record = (yield* status).me;
        assert.deepStrictEqual(Object.keys(record).sort(), ["lastseen", "lifetime", "priority"]);
        assert.deepInclude(record, { priority: 7, lifetime: 60 });
        assert.match(record.lastseen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
        assert.isTrue(yield* Presence.touch(target, me, 0));
        assert.deepStrictEqual(yield* status, {});
      }),
    ),
  );

  it.effect("touch answers false when the peering object does not exist", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* PeeringCrds.apply;
        assert.isFalse(yield* Presence.touch(target, me));
        assert.isTrue(H.logged(lines, "Keep-alive in 'default' in 'ns1': not found."));
      }),
    ),
  );

  it.effect("the keep-alive writes at once and removes the record when interrupted", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setup;
        const fiber = yield* Effect.forkScoped(Presence.keepAlive(target, me));
        yield* H.settle(1);
        assert.deepInclude((yield* status).me, { priority: 7 });
        yield* Fiber.interrupt(fiber);
        assert.deepStrictEqual(yield* status, {});
      }),
    ),
  );

  it.effect("the observation reports each event's verdict, beginning with `mandatory`", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setup;
        const reports: Array<boolean> = [];
        const observe = (mandatory: boolean) =>
          Effect.forkScoped(
            Presence.observe(target, { ...me, mandatory }, (paused) =>
              Effect.sync(() => void reports.push(paused)),
            ),
          );
        const fiber = yield* observe(true);
        yield* H.settle(1);
        assert.deepStrictEqual(reports, [true, false]); // the object's listing shows no conflict
        const lastseen = "2999-01-01T00:00:00.000000+00:00";
        yield* write({ higher: { priority: 8, lifetime: 60, lastseen } });
        yield* H.settle(1);
        assert.deepStrictEqual(reports, [true, false, true]);
        yield* write({ higher: null, lower: { priority: 6, lifetime: 60, lastseen } });
        yield* H.settle(1);
        assert.deepStrictEqual(reports, [true, false, true, false]);
        yield* Fiber.interrupt(fiber);
        reports.length = 0;
        yield* observe(false);
        yield* H.settle(1);
        assert.deepStrictEqual(reports, [false, false]);
      }),
    ),
  );
});

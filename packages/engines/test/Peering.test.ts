/**
 * Peering end to end on one emulator in virtual time (docs/behaviour/peering.md): the CRDs applied from the
 * package; two operators with different priorities — the lower one pauses (handles nothing),
 * and resumes when the higher one exits (its record removed on exit) or when a `kopf freeze`
 * record expires; equal priorities pause both; the presence records are in Kopf's format; a
 * mandatory peering without the object keeps the operator paused; peering settings changed by
 * startup handlers apply; namespace patterns peer in every matching namespace as namespaces come
 * and go (Kopf's served set), for operators and for `kopf freeze`; a mandatory peering holds a
 * namespace created later until its peering object exists there, with the operator's one
 * namespace watch (peering follows the runtime's served set, it opens none of its own).
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import { type DaemonContext, Registry } from "@kopf/registry";
import type { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Operating from "../src/Operating.ts";
import * as Peering from "../src/Peering.ts";
import * as PeeringCrds from "../src/PeeringCrds.ts";
import * as H from "./fixtures/Harness.ts";

const PEERINGS = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  kind: "KopfPeering",
  namespaced: true,
});

const setupPeering = Effect.gen(function* () {
  yield* PeeringCrds.apply;
  yield* Effect.flatMap(KubeEmulator, (emulator) =>
    emulator.apply([PeeringCrds.peeringObject("default", "ns1")]),
  );
});

/** An operator on ns1 recording the objects it created, with peering (priority, identity). */
const operator = (
  who: string,
  handled: Array<string>,
  options: { priority?: number; peeringName?: string } = {},
) =>
  Effect.gen(function* () {
    const registry = Registry.make();
    registry.on.create(H.RES, function created({ name }) {
      handled.push(`${who}:${name}`);
    });
    return yield* Effect.forkScoped(
      Operating.run({ registry, namespaces: ["ns1"], identity: who, ...options }),
    );
  });

const statusIn = (namespace: string) =>
  Effect.flatMap(KubeApi, (api) => api.get(PEERINGS, { namespace, name: "default" })).pipe(
    Effect.map((body) => (body.status ?? {}) as Record<string, any>),
    Effect.orDie,
  );
const statusOf = statusIn("ns1");

const NAMESPACES = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });

/** Namespaces with a peering object each. */
const namespacesWithPeering = (...names: ReadonlyArray<string>) =>
  Effect.flatMap(KubeEmulator, (emulator) =>
    emulator.apply(
      names.flatMap((name) => [
        { apiVersion: "v1", kind: "Namespace", metadata: { name } },
        PeeringCrds.peeringObject("default", name),
      ]),
    ),
  );

describe("targets", () => {
  const cluster = Resource.make({
    group: "kopf.dev",
    version: "v1",
    plural: "clusterkopfpeerings",
    namespaced: false,
  });
  it.each([
    ["namespaced, each served namespace", [PEERINGS], ["a", "b"], ["kopfpeerings in a", "kopfpeerings in b"]],
    ["namespaced, none served", [PEERINGS], [], []],
    ["namespaced, the cluster-wide marker is no namespace", [PEERINGS], [null], []],
    ["cluster-wide, once", [cluster], [null], ["clusterkopfpeerings in null"]],
    ["cluster-scoped resources ignore namespaces", [cluster], ["a", "b"], ["clusterkopfpeerings in null"]],
  ] as const)("%s", (_, found, namespaces, expected) => {
    const got = Peering.targets(found, new Set(namespaces)).map(
      (t) => `${t.resource.plural} in ${t.namespace}`,
    );
    assert.deepStrictEqual(got, [...expected]);
  });
});

describe("peering", () => {
  it.effect("the lower priority pauses, and resumes when the higher one exits", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        const high = yield* operator("high", handled, { priority: 10 });
        yield* operator("low", handled, { priority: 0 });
        yield* H.settle(3);
        const status = yield* statusOf;
        assert.deepStrictEqual(Object.keys(status).sort(), ["high", "low"]);
        assert.deepInclude(status.high, { priority: 10, lifetime: 60 });
        assert.match(status.high.lastseen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
        assert.isTrue(
          H.logged(lines, "Pausing operations in favour of [<Peer high: priority=10, lifetime=60"),
        );

        yield* H.create("o1");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, ["high:o1"]);

        yield* Fiber.interrupt(high);
        yield* H.settle(3);
        assert.deepStrictEqual(Object.keys(yield* statusOf), ["low"]);
        assert.isTrue(H.logged(lines, "Resuming operations after the pause."));
        yield* H.create("o2");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, ["high:o1", "low:o2"]);
      }),
    ),
  );

  it.effect("peering settings changed by startup handlers apply (Kopf's settings.peering.*)", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        const configured = (who: string, change: (peering: Settings.MutableSettings["peering"]) => void) => {
          const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
          registry.on.startup(function configure({ settings }) {
            change(settings.peering);
          });
          registry.on.create(H.RES, function created({ name }) {
            handled.push(`${who}:${name}`);
          });
          return Effect.forkScoped(Operating.run({ registry, namespaces: ["ns1"], identity: who }));
        };
        yield* configured("high", (peering) => {
          peering.priority = 10;
        });
        yield* configured("alone", (peering) => {
          peering.standalone = true;
        });
        yield* H.settle(3);
        const status = yield* statusOf;
        assert.deepStrictEqual(Object.keys(status), ["high"]);
        assert.deepInclude(status.high, { priority: 10 });
        yield* H.create("o1");
        yield* H.settle(3);
        assert.sameMembers(handled, ["high:o1", "alone:o1"]);
      }),
    ),
  );

  it.effect("kopf freeze pauses lower priorities until the record expires; resume removes it", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        yield* operator("op", handled);
        yield* H.settle(2);
        const freeze = { identity: "admin@box", name: "default", clusterwide: false, namespaces: ["ns1"] };
        yield* Peering.freeze({ ...freeze, lifetime: 30 });
        yield* H.settle(2);
        assert.deepInclude((yield* statusOf)["admin@box"], { priority: 100, lifetime: 30 });
        yield* H.create("o1");
        yield* H.settle(5);
        assert.deepStrictEqual(handled, []);
        yield* H.settle(30);
        // The freeze record expired: the operator re-evaluated, cleaned it, and resumed.
        assert.isUndefined((yield* statusOf)["admin@box"]);
        assert.deepStrictEqual(handled, ["op:o1"]);

        yield* Peering.freeze({ ...freeze, lifetime: 600 });
        yield* H.settle(2);
        yield* H.create("o2");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, ["op:o1"]);
        yield* Peering.resume(freeze);
        yield* H.settle(3);
        assert.deepStrictEqual(handled, ["op:o1", "op:o2"]);
        assert.isTrue(H.logged(lines, "Resuming operations after the pause."));
      }),
    ),
  );

  it.effect("equal priorities pause everyone with a warning", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        yield* operator("one", handled);
        yield* operator("two", handled);
        yield* H.settle(3);
        yield* H.create("o1");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, []);
        assert.isTrue(H.logged(lines, "Possibly conflicting operators with the same priority"));
      }),
    ),
  );

  it.effect("a mandatory peering (--peering NAME) without its object keeps the operator paused", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        yield* operator("op", handled, { peeringName: "absent" });
        yield* H.settle(2);
        yield* H.create("o1");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, []);
        yield* Effect.flatMap(KubeEmulator, (emulator) =>
          emulator.apply([PeeringCrds.peeringObject("absent", "ns1")]),
        );
        yield* H.settle(3);
        yield* H.patch("o1", { spec: { field: "x" } });
        yield* H.settle(3);
        assert.deepStrictEqual(handled, ["op:o1"]);
      }),
    ),
  );

  it.effect(
    "peering CRDs applied after the start are found later; until then the operator is standalone",
    () =>
      H.run((lines) =>
        Effect.gen(function* () {
          const handled: Array<string> = [];
          yield* operator("op", handled);
          yield* H.settle(2);
          assert.isTrue(
            H.logged(lines, "Default peering object is not found, falling back to the standalone mode."),
          );
          yield* H.create("o1");
          yield* H.settle(2);
          assert.deepStrictEqual(handled, ["op:o1"]);
          yield* setupPeering;
          yield* H.settle(Peering.REDISCOVERY_SECONDS + 2);
          assert.deepInclude((yield* statusOf).op, { priority: 0 });
          yield* Peering.freeze({
            identity: "admin",
            name: "default",
            clusterwide: false,
            namespaces: ["ns1"],
            lifetime: 60,
          });
          yield* H.settle(2);
          yield* H.create("o2");
          yield* H.settle(3);
          assert.deepStrictEqual(handled, ["op:o1"]);
        }),
      ),
  );

  it.effect("a pause stops the daemons (operator-pausing); resuming respawns them", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setupPeering;
        const events: Array<string> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, async function watcher({ stopped }: DaemonContext) {
          events.push("started");
          await stopped.wait();
          events.push(`stopped: ${[...(stopped.reason ?? [])].join(",")}`);
        });
        yield* Effect.forkScoped(Operating.run({ registry, namespaces: ["ns1"], identity: "op" }));
        yield* H.settle(2);
        yield* H.create("o1");
        yield* H.settle(2);
        assert.deepStrictEqual(events, ["started"]);
        const freeze = { identity: "admin", name: "default", clusterwide: false, namespaces: ["ns1"] };
        yield* Peering.freeze({ ...freeze, lifetime: 600 });
        yield* H.settle(3);
        assert.deepStrictEqual(events, ["started", "stopped: operator-pausing"]);
        yield* Peering.resume(freeze);
        yield* H.settle(3);
        assert.deepStrictEqual(events, ["started", "stopped: operator-pausing", "started"]);
      }),
    ),
  );

  it.effect("namespace patterns: a presence in every matching namespace, as namespaces come and go", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        yield* setupPeering;
        const handled: Array<string> = [];
        const registry = Registry.make();
        registry.on.create(H.RES, function created({ name }) {
          handled.push(name ?? "");
        });
        yield* Effect.forkScoped(Operating.run({ registry, namespaces: ["ns*,!ns9"], identity: "op" }));
        yield* H.settle(2);
        assert.deepInclude((yield* statusIn("ns1")).op, { priority: 0 });
        assert.isFalse(H.logged(lines, "patterns"));

        // Namespaces created later: peered in when they match, not otherwise.
        yield* namespacesWithPeering("ns2", "ns9", "other");
        yield* H.settle(3);
        assert.deepInclude((yield* statusIn("ns2")).op, { priority: 0 });
        assert.deepStrictEqual(yield* statusIn("ns9"), {});
        assert.deepStrictEqual(yield* statusIn("other"), {});

        // A freeze in one served namespace pauses the whole operator...
        yield* Peering.freeze({
          identity: "admin",
          name: "default",
          clusterwide: false,
          namespaces: ["ns2"],
          lifetime: 600,
        });
        yield* H.settle(2);
        assert.isTrue(H.logged(lines, "Pausing operations in favour of [<Peer admin: priority=100"));
        yield* H.create("o1");
        yield* H.settle(3);
        assert.deepStrictEqual(handled, []);
        // ...until that namespace is no longer served: its presence and verdict go with it.
        yield* Effect.flatMap(KubeApi, (api) => api.delete(NAMESPACES, { name: "ns2" })).pipe(Effect.orDie);
        yield* H.settle(5);
        assert.deepStrictEqual(handled, ["o1"]);
        assert.deepStrictEqual(Object.keys(yield* statusIn("ns1")), ["op"]);
      }),
    ),
  );

  it.effect("kopf freeze with patterns writes into every matching namespace; matching none is an error", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* setupPeering;
        yield* namespacesWithPeering("ns2", "other");
        const freeze = { identity: "admin", name: "default", clusterwide: false, lifetime: 600 };
        yield* Peering.freeze({ ...freeze, namespaces: ["ns*"] });
        assert.deepInclude((yield* statusIn("ns1")).admin, { priority: 100, lifetime: 600 });
        assert.deepInclude((yield* statusIn("ns2")).admin, { priority: 100, lifetime: 600 });
        assert.deepStrictEqual(yield* statusIn("other"), {});
        yield* Peering.resume({ ...freeze, namespaces: [/^ns\d$/] });
        assert.deepStrictEqual(yield* statusIn("ns1"), {});
        assert.deepStrictEqual(yield* statusIn("ns2"), {});

        const error = yield* Effect.flip(Peering.freeze({ ...freeze, namespaces: ["absent-*"] }));
        assert.strictEqual(error.reason, "NoTargets");
        assert.strictEqual(
          error.message,
          "No existing namespace matches absent-*: nothing to freeze or resume.",
        );
      }),
    ),
  );

  it.effect(
    "mandatory: a namespace created later is held until its peering object exists, with one namespace watch",
    () =>
      H.run((lines) =>
        Effect.gen(function* () {
          yield* setupPeering;
          const api = yield* KubeApi;
          const namespaceWatches: Array<string> = [];
          const counting: KubeApi["Service"] = {
            ...api,
            watch: (resource, options) => {
              if (resource.plural === "namespaces") namespaceWatches.push(String(options?.namespace ?? "*"));
              return api.watch(resource, options);
            },
          };
          const handled: Array<string> = [];
          const registry = Registry.make();
          registry.on.create(H.RES, function created({ namespace, name }) {
            handled.push(`${namespace}/${name}`);
          });
          yield* Effect.forkScoped(
            Operating.run({ registry, namespaces: ["ns*"], identity: "op", peeringName: "default" }).pipe(
              Effect.provideService(KubeApi, counting),
            ),
          );
          yield* H.settle(2);
          yield* H.create("o1");
          yield* H.settle(2);
          assert.deepStrictEqual(handled, ["ns1/o1"]);

          // The namespace and an object in it, no peering object there: nothing is handled...
          yield* Effect.flatMap(KubeEmulator, (emulator) =>
            emulator.apply([
              { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns2" } },
              { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "o2", namespace: "ns2" } },
            ]),
          );
          yield* H.settle(5);
          assert.isTrue(H.logged(lines, "Keep-alive in 'default' in 'ns2': not found."));
          yield* H.create("o3");
          yield* H.settle(5);
          assert.deepStrictEqual(handled, ["ns1/o1"]);

          // ...until it exists: then both are handled, after resuming.
          yield* Effect.flatMap(KubeEmulator, (emulator) =>
            emulator.apply([PeeringCrds.peeringObject("default", "ns2")]),
          );
          yield* H.settle(5);
          assert.deepStrictEqual([...handled].sort(), ["ns1/o1", "ns1/o3", "ns2/o2"]);
          assert.deepStrictEqual(namespaceWatches, ["*"]);
        }),
      ),
  );
});

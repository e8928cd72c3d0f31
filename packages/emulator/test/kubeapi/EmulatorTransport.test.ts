// Covers the real KubeApi over the emulator's in-process transport (no sockets): CRUD on core
// objects, paginated listing, every patch type, deletion, watching with resumption from a
// resourceVersion, a dropped stream ending the watch, 410 for a compacted history, discovery,
// events; and, with the fault injector in virtual time: 429 with Retry-After, retried 500s, 401
// with re-login (required token).
import { assert, describe, it } from "@effect/vitest";
import { type Credentials, KubeApi, type WatchEvent } from "@kopf/client";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Ref from "effect/Ref";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import * as EmulatorTransport from "../../src/kubeapi/EmulatorTransport.ts";

const configmaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});
const namespaces = Resource.make({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
});
const deployments = Resource.make({
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
});

const emulator = () => Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer);

const run = <A, E>(
  body: (api: KubeApi["Service"]) => Effect.Effect<A, E, KubeEmulator | FaultInjector>,
  options: Parameters<typeof EmulatorTransport.client>[0] = {},
) =>
  Effect.flatMap(KubeApi, body).pipe(
    Effect.provide(EmulatorTransport.client(options).pipe(Layer.provideMerge(emulator()), Layer.fresh)),
  );

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default" },
  data,
});

describe("requests against the emulator", () => {
  it.effect("create, get, patch (merge, json, strategic, apply), delete", () =>
    run((api) =>
      Effect.gen(function* () {
        const created = yield* api.create(configmaps, cm("c1", { a: "1" }));
        assert.isString(created.metadata?.uid);
        const where = { namespace: "default", name: "c1" };
        yield* api.patch(configmaps, where, { type: "merge", body: { data: { b: "2" } } });
        yield* api.patch(configmaps, where, {
          type: "json",
          body: [{ op: "add", path: "/data/c", value: "3" }],
        });
        yield* api.patch(configmaps, where, {
          type: "strategic",
          body: { metadata: { labels: { l: "x" } } },
        });
        yield* api.patch(
          configmaps,
          where,
          {
            type: "apply",
            body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1" }, data: { d: "4" } },
          },
          { fieldManager: "tester" },
        );
        const got = yield* api.get(configmaps, where);
        assert.deepStrictEqual(got.data, { a: "1", b: "2", c: "3", d: "4" });
        assert.deepStrictEqual(got.metadata?.labels, { l: "x" });
        yield* api.delete(configmaps, where);
        const error = yield* Effect.flip(api.get(configmaps, where));
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "NotFound");
        assert.strictEqual(error.message, 'configmaps "c1" not found');
      }),
    ),
  );

  it.effect("a conflicting create is a Conflict; an invalid name is Invalid", () =>
    run((api) =>
      Effect.gen(function* () {
        yield* api.create(configmaps, cm("dup"));
        const conflict = yield* Effect.flip(api.create(configmaps, cm("dup")));
        assert.strictEqual(conflict._tag === "KubeApiError" && conflict.reason, "Conflict");
        const invalid = yield* Effect.flip(api.create(configmaps, cm("Not_Valid")));
        assert.strictEqual(invalid._tag === "KubeApiError" && invalid.reason, "Invalid");
      }),
    ),
  );

  it.effect("listAll follows continue tokens across pages", () =>
    run((api) =>
      Effect.gen(function* () {
        for (let i = 0; i < 7; i++) yield* api.create(configmaps, cm(`p${i}`));
        const pages = yield* Stream.runCollect(api.listAll(configmaps, { namespace: "default", limit: 3 }));
        assert.isAtLeast(pages.length, 3);
        const names = pages.flatMap((page) => page.items.map((item) => item.metadata?.name));
        assert.includeMembers(names, ["p0", "p3", "p6"]);
        assert.strictEqual(new Set(pages.map((page) => page.metadata?.resourceVersion)).size, 1);
      }),
    ),
  );

  it.effect("discovery lists core and apps resources", () =>
    run((api) =>
      Effect.gen(function* () {
        const groups = yield* api.discover();
        const core = groups.find((gv) => gv.group === "" && gv.version === "v1");
        assert.isTrue(core?.resources.some((r) => r.name === "configmaps" && r.namespaced));
        const apps = groups.find((gv) => gv.group === "apps");
        assert.isTrue(apps?.preferred);
        assert.isTrue(apps?.resources.some((r) => r.name === "deployments"));
        const ns = yield* api.list(namespaces);
        assert.includeMembers(
          ns.items.map((n) => n.metadata?.name),
          ["default", "kube-system"],
        );
      }),
    ),
  );

  it.effect("events are posted to the object's namespace", () =>
    run((api) =>
      Effect.gen(function* () {
        yield* api.postEvent(
          { apiVersion: "apps/v1", kind: "Deployment", name: "d", uid: "u", namespace: "default" },
          { type: "Normal", reason: "Tested", message: "hello" },
        );
        const events = Resource.make({ group: "", version: "v1", plural: "events", namespaced: true });
        const list = yield* api.list(events, { namespace: "default" });
        assert.strictEqual(list.items.length, 1);
        assert.strictEqual(list.items[0]?.reason, "Tested");
      }),
    ),
  );
});

describe("watching the emulator", () => {
  it.effect("streams changes after the given resourceVersion, and ends when the streams are dropped", () =>
    run((api) =>
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        const listed = yield* api.list(deployments, { namespace: "default" });
        const rv = listed.metadata?.resourceVersion;
        const seen: Array<WatchEvent> = [];
        const fiber = yield* Effect.forkChild(
          Stream.runForEach(api.watch(deployments, { namespace: "default", resourceVersion: rv }), (event) =>
            Effect.sync(() => seen.push(event)),
          ),
        );
        yield* api.create(configmaps, cm("w1"));
        yield* api.create(deployments, {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "d1", namespace: "default" },
          spec: {
            selector: { matchLabels: { app: "x" } },
            template: {
              metadata: { labels: { app: "x" } },
              spec: { containers: [{ name: "c", image: "i" }] },
            },
          },
        });
        yield* api.delete(deployments, { namespace: "default", name: "d1" });
        // Wait (in real time) until both changes have arrived, then drop the stream.
        const changesOf = () => seen.filter((e) => e.type !== "BOOKMARK");
        for (let i = 0; i < 500 && changesOf().length < 2; i++)
          yield* Effect.sleep("10 millis").pipe(TestClock.withLive);
        yield* kube.dropWatches;
        yield* Fiber.join(fiber);
        const changes = changesOf();
        assert.deepStrictEqual(
          changes.map((e) => [e.type, e.object.metadata?.name]),
          [
            ["ADDED", "d1"],
            ["DELETED", "d1"],
          ],
        );
      }),
    ),
  );

  it.effect("a compacted history answers 410 Gone as an ERROR event", () =>
    run((api) =>
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        const old = (yield* api.create(configmaps, cm("old"))).metadata?.resourceVersion;
        yield* api.create(configmaps, cm("new"));
        yield* kube.compactHistory;
        const events = yield* Stream.runCollect(
          Stream.take(api.watch(configmaps, { namespace: "default", resourceVersion: old }), 1),
        );
        assert.strictEqual(events[0]?.type, "ERROR");
        assert.strictEqual(events[0]?.object.code, 410);
      }),
    ),
  );
});

describe("faults and authentication (virtual time)", () => {
  it.effect("429 with Retry-After is waited out, then the request succeeds", () =>
    run((api) =>
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* faults.injectFailure({
          status: 429,
          retryAfterSeconds: 7,
          resource: "configmaps",
          verb: "get",
        });
        yield* api.create(configmaps, cm("slow"));
        const fiber = yield* Effect.forkChild(api.get(configmaps, { namespace: "default", name: "slow" }));
        for (let i = 0; i < 65; i++) yield* TestClock.adjust("100 millis");
        assert.isUndefined(fiber.pollUnsafe());
        for (let i = 0; i < 10; i++) yield* TestClock.adjust("100 millis");
        const got = yield* Fiber.join(fiber);
        assert.strictEqual(got.metadata?.name, "slow");
      }),
    ),
  );

  it.effect("500s are retried with the configured backoffs; more than that escalates", () =>
    Effect.gen(function* () {
      const settings = Settings.make({ networking: { errorBackoffs: [1, 2] } });
      if (settings._tag === "Failure") throw new Error("settings");
      yield* run((api) =>
        Effect.gen(function* () {
          const faults = yield* FaultInjector;
          yield* faults.injectFailure({ status: 500, verb: "list", resource: "configmaps", times: 2 });
          const fiber = yield* Effect.forkChild(api.list(configmaps, { namespace: "default" }));
          for (let i = 0; i < 35; i++) yield* TestClock.adjust("100 millis");
          assert.isArray((yield* Fiber.join(fiber)).items);
          yield* faults.injectFailure({ status: 503, verb: "list", resource: "configmaps", times: 3 });
          const failing = yield* Effect.forkChild(
            Effect.flip(api.list(configmaps, { namespace: "default" })),
          );
          for (let i = 0; i < 35; i++) yield* TestClock.adjust("100 millis");
          const error = yield* Fiber.join(failing);
          assert.strictEqual(error._tag === "KubeApiError" && error.reason, "ServerError");
        }),
      ).pipe(Effect.provideService(OperatorSettings, settings.success));
    }),
  );

  it.effect("401 invalidates the token and re-logs in; the new token is accepted", () =>
    Effect.gen(function* () {
      const logins = yield* Ref.make(0);
      const login = Ref.updateAndGet(logins, (n) => n + 1).pipe(
        Effect.map((n): Credentials => EmulatorTransport.credentials(n === 1 ? "stale" : "right")),
      );
      const names = yield* run(
        (api) => Effect.map(api.list(namespaces), (list) => list.items.map((item) => item.metadata?.name)),
        { requiredToken: "right", login },
      );
      assert.include(names, "default");
      assert.strictEqual(yield* Ref.get(logins), 2);
    }),
  );
});

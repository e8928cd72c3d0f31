/**
 * Admission end to end over the emulator, which calls webhooks as a real API server does (spec
 * §9.1, §9.4): the managed configurations are created and filled with the server's URL and CA
 * bundle, a validating handler rejects a real create request with its message and code, a
 * mutating handler's change is stored, warnings reach the client, and on exit only the
 * persistent handlers' webhooks remain. Also: handlers without a server fail with Kopf's message.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { AdmissionError, Registry } from "@kopf/registry";
import type { RootTasks } from "@kopf/runtime";
import { OperatorSettings, Settings } from "@kopf/settings";
import { EmulatorTransport, FaultInjector, KopfRunner, KubeEmulator, WebhookAdmission } from "@kopf/testing";
import { Deferred, Effect, Fiber, Layer, Stream } from "effect";
import { Admission, type ClientConfig, ConfigManager, WebhookServer } from "../src/index.ts";
import { RESOURCE, SPEC } from "./fixtures/reviews.ts";

const cluster = EmulatorTransport.client().pipe(
  Layer.provideMerge(
    Layer.mergeAll(KubeEmulator.layer({ admission: WebhookAdmission.hook }), FaultInjector.layer),
  ),
);

const CRD = KopfRunner.kopfExampleCrd;

const object = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "ns1" },
  spec,
});

const registry = () => {
  const r = Registry.make();
  r.on.validate(SPEC, { id: "check", persistent: true }, ({ spec, warnings }: any) => {
    if (spec.field === "bad") throw new AdmissionError("The field must not be bad.", { code: 422 });
    if (spec.field === "odd") warnings.push("This field is odd.");
  });
  r.on.mutate(SPEC, { id: "defaults", operations: ["CREATE"] }, ({ spec, patch }: any) => {
    if (spec.size === undefined) patch.spec.size = "medium";
  });
  return r;
};

const settingsWith = (admission: Record<string, unknown>) =>
  Settings.make({ admission } as Settings.Overrides).pipe((r) => {
    if (r._tag === "Failure") throw new Error(r.failure.message);
    return r.success;
  });

describe("Admission.run", () => {
  it.live("serves the emulator's webhook calls and manages the configurations", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const emulator = yield* KubeEmulator;
        const api = yield* KubeApi;
        yield* emulator.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }, CRD]);
        const server = WebhookServer.WebhookServer({ addr: "127.0.0.1" });
        const settings = settingsWith({ server, managed: "auto.kopf.dev" });
        const reported = yield* Deferred.make<ClientConfig>();
        const fiber = yield* Effect.forkScoped(
          Admission.run({
            registry: registry(),
            onClientConfig: (config) => Deferred.succeed(reported, config).pipe(Effect.asVoid),
          }).pipe(Effect.provideService(OperatorSettings, settings)),
        );
        const config = yield* Deferred.await(reported);

        // The configurations point at the server, one webhook per handler of the kind.
        const validating = ConfigManager.configurationResource("validating");
        const mutating = ConfigManager.configurationResource("mutating");
        const vwc = yield* Effect.eventually(
          api
            .get(validating, { name: "auto.kopf.dev" })
            .pipe(Effect.filterOrFail((b: any) => (b.webhooks ?? []).length === 1)),
        );
        const [webhook] = (vwc as any).webhooks;
        assert.strictEqual(webhook.name, "check.auto.kopf.dev");
        assert.strictEqual(webhook.clientConfig.url, `${config.url}/check`);
        assert.strictEqual(webhook.clientConfig.caBundle, config.caBundle);
        assert.deepStrictEqual(webhook.rules, [
          {
            apiGroups: ["kopf.dev"],
            apiVersions: ["v1"],
            resources: ["kopfexamples"],
            operations: ["*"],
            scope: "*",
          },
        ]);
        const mwc = yield* Effect.eventually(
          api
            .get(mutating, { name: "auto.kopf.dev" })
            .pipe(Effect.filterOrFail((b: any) => (b.webhooks ?? []).length === 1)),
        );
        assert.strictEqual((mwc as any).webhooks[0].name, "defaults.auto.kopf.dev");

        // A validating handler rejects a real create request with its message and code.
        const rejected = yield* Effect.flip(
          api.create(RESOURCE, object("bad-one", { field: "bad" }) as never),
        );
        assert.strictEqual(rejected._tag, "KubeApiError");
        assert.include(rejected.message, "The field must not be bad.");
        assert.strictEqual((rejected as any).status, 422);
        assert.strictEqual((rejected as any).code, 422);

        // A mutating handler's change is stored.
        yield* api.create(RESOURCE, object("good-one", { field: "fine" }) as never);
        const stored = yield* api.get(RESOURCE, { name: "good-one", namespace: "ns1" });
        assert.deepStrictEqual((stored as any).spec, { field: "fine", size: "medium" });

        // Warnings reach the client (as Warning headers of the API response).
        const response = yield* emulator.handle({
          method: "POST",
          path: "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples",
          query: new URLSearchParams(),
          headers: { "content-type": "application/json" },
          body: new TextEncoder().encode(JSON.stringify(object("odd-one", { field: "odd" }))),
          user: { username: "tester", groups: ["system:authenticated"] },
        });
        assert.strictEqual(response._tag === "Complete" ? response.status : 0, 201);
        assert.include(response.headers.warning ?? "", "This field is odd.");

        // On exit, only the persistent handlers' webhooks remain.
        yield* Fiber.interrupt(fiber);
        const vwcAfter = yield* api.get(validating, { name: "auto.kopf.dev" });
        const mwcAfter = yield* api.get(mutating, { name: "auto.kopf.dev" });
        assert.deepStrictEqual(
          ((vwcAfter as any).webhooks ?? []).map((w: any) => w.name),
          ["check.auto.kopf.dev"],
        );
        assert.deepStrictEqual((mwcAfter as any).webhooks ?? [], []);
      }),
    ).pipe(Effect.provide(cluster)),
  );

  it.effect("handlers without a server fail with Kopf's message; no handlers run nothing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Admission.run({ registry: registry() }).pipe(
          Effect.provideService(OperatorSettings, settingsWith({ server: null })),
        ),
      );
      assert.strictEqual(error.reason, "NoServer");
      assert.include(error.message, "no admission server/tunnel is configured");
      const invalid = yield* Effect.flip(
        Admission.run({ registry: registry() }).pipe(
          Effect.provideService(OperatorSettings, settingsWith({ server: { port: 1 } })),
        ),
      );
      assert.strictEqual(invalid.reason, "InvalidServer");
      yield* Admission.run({ registry: Registry.make() });
      // As an operator task, the operator's settings count, not the context's.
      const viaTask = yield* Effect.flip(
        Admission.task({ registry: registry(), memo: {}, settings: settingsWith({ server: null }) }).pipe(
          Effect.provideService(OperatorSettings, settingsWith({ server: { serve: () => Stream.empty } })),
        ),
      );
      assert.strictEqual(viaTask.reason, "NoServer");
    }).pipe(Effect.provide(cluster)),
  );

  it("is a root task of the runtime", () => {
    const tasks: ReadonlyArray<RootTasks.RootTask> = [Admission.task];
    assert.strictEqual(tasks.length, 1);
  });

  it.live("operate runs the operator and its webhooks together, sharing the objects' memos", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const emulator = yield* KubeEmulator;
        const api = yield* KubeApi;
        yield* emulator.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }, CRD]);
        const r = registry();
        r.on.create(SPEC, { id: "created" }, ({ memo }: any) => {
          memo.fromCreate = "yes";
          return { done: true };
        });
        const memos: Array<unknown> = [];
        r.on.validate(SPEC, { id: "memo-check", operations: ["UPDATE"] }, ({ memo }: any) => {
          memos.push(memo.fromCreate);
        });
        const fiber = yield* Effect.forkScoped(
          Admission.operate({
            registry: r,
            namespaces: ["ns1"],
            settings: {
              admission: {
                server: WebhookServer.WebhookServer({ addr: "127.0.0.1" }),
                managed: "op.kopf.dev",
              },
            } as never,
          }),
        );
        yield* Effect.eventually(
          api
            .get(ConfigManager.configurationResource("validating"), { name: "op.kopf.dev" })
            .pipe(Effect.filterOrFail((b: any) => (b.webhooks ?? []).length === 2)),
        );
        const rejected = yield* Effect.flip(
          api.create(RESOURCE, object("bad-two", { field: "bad" }) as never),
        );
        assert.include(rejected.message, "The field must not be bad.");
        yield* api.create(RESOURCE, object("good-two", { field: "fine" }) as never);
        const handled = yield* Effect.eventually(
          api
            .get(RESOURCE, { name: "good-two", namespace: "ns1" })
            .pipe(Effect.filterOrFail((b: any) => b.status?.created !== undefined)),
        );
        assert.deepStrictEqual((handled as any).status.created, { done: true });
        assert.strictEqual((handled as any).spec.size, "medium");
        // An UPDATE request's handlers get the memo the object's handlers share (Kopf's memo).
        yield* api.patch(
          RESOURCE,
          { name: "good-two", namespace: "ns1" },
          { type: "merge", body: { spec: { field: "changed" } } },
        );
        assert.include(memos, "yes");
        yield* Fiber.interrupt(fiber);
      }),
    ).pipe(Effect.provide(cluster)),
  );
});

/**
 * Admission end to end on the selected cluster (docs/behaviour/admission.md#configuration, docs/behaviour/admission.md#managed-configurations): the emulator, which calls
 * webhooks as a real API server does, or a real kube-apiserver (the real tier), calling the
 * operator's webhook server over TLS. The managed configurations are created and filled with the
 * server's URL and CA bundle, a validating handler rejects a real create request with its
 * message and code, a mutating handler's change is stored, warnings reach the client as
 * `Warning` headers, and on exit only the persistent handlers' webhooks remain. Also: handlers
 * without a server fail with Kopf's message. Tests share a real cluster: each has its own
 * namespace and configuration name, and removes its configurations when it ends.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { AdmissionError, Registry } from "@kopf/registry";
import type { RootTasks } from "@kopf/runtime";
import { OperatorSettings, Settings } from "@kopf/settings";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import { Admission, type ClientConfig, ConfigManager, WebhookServer } from "../src/index.ts";
import {
  cluster,
  collection,
  create,
  object,
  removedAtEnd,
  send,
  setUp,
  untilCalled,
} from "./fixtures/cluster.ts";
import { RESOURCE, SPEC } from "./fixtures/reviews.ts";

const validating = ConfigManager.configurationResource("validating");
const mutating = ConfigManager.configurationResource("mutating");

/** Waits until the API server calls the `check` and `defaults` webhooks (dry-run probes). */
const untilServed = (namespace: string) =>
  Effect.gen(function* () {
    yield* untilCalled(
      create(collection(namespace), object(namespace, "probe", { field: "bad" }), { dryRun: true }),
      (answer) => answer.status === 422,
    );
    yield* untilCalled(
      create(collection(namespace), object(namespace, "probe", { field: "fine" }), { dryRun: true }),
      (answer) => answer.status === 201 && answer.body?.spec?.size === "medium",
    );
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
  it.live("serves the API server's webhook calls and manages the configurations", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ns = "adm-run";
        const api = yield* KubeApi;
        yield* setUp(ns);
        yield* removedAtEnd("auto.kopf.dev");
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
        const vwc = yield* Effect.eventually(
          api
            .get(validating, { name: "auto.kopf.dev" })
            .pipe(Effect.filterOrFail((b: any) => (b.webhooks ?? []).length === 1)),
        );
        const [webhook] = (vwc as any).webhooks;
        assert.strictEqual(webhook.name, "check.auto.kopf.dev");
        assert.match(config.url ?? "", /^https:\/\/127\.0\.0\.1:\d+$/);
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
        yield* untilServed(ns);

        // A validating handler rejects a real create request with its message and code.
        const rejected = yield* Effect.flip(
          api.create(RESOURCE, object(ns, "bad-one", { field: "bad" }) as never),
        );
        assert.strictEqual(rejected._tag, "KubeApiError");
        assert.strictEqual(
          rejected.message,
          'admission webhook "check.auto.kopf.dev" denied the request: The field must not be bad.',
        );
        assert.strictEqual((rejected as any).status, 422);
        assert.strictEqual((rejected as any).code, 422);

        // A mutating handler's change is stored.
        yield* api.create(RESOURCE, object(ns, "good-one", { field: "fine" }) as never);
        const stored = yield* api.get(RESOURCE, { name: "good-one", namespace: ns });
        assert.deepStrictEqual((stored as any).spec, { field: "fine", size: "medium" });

        // Warnings reach the client as Warning headers of the API response.
        const odd = yield* send("POST", collection(ns), object(ns, "odd-one", { field: "odd" }));
        assert.strictEqual(odd.status, 201);
        assert.strictEqual(odd.warning, '299 - "This field is odd."');

        // On exit, only the persistent handlers' webhooks remain.
        yield* Fiber.interrupt(fiber);
        const vwcAfter = yield* api.get(validating, { name: "auto.kopf.dev" });
        const mwcAfter = yield* api.get(mutating, { name: "auto.kopf.dev" });
        assert.deepStrictEqual(
          ((vwcAfter as any).webhooks ?? []).map((w: any) => w.name),
          ["check.auto.kopf.dev"],
        );
        assert.deepStrictEqual((mwcAfter as any).webhooks ?? [], []);

        // With the server gone, the persistent webhook (failurePolicy Fail) rejects new objects.
        const port = new URL(config.url ?? "").port;
        const blocked = yield* send("POST", collection(ns), object(ns, "after-exit", { field: "fine" }));
        assert.strictEqual(blocked.status, 500);
        assert.strictEqual(
          blocked.body.message,
          'Internal error occurred: failed calling webhook "check.auto.kopf.dev": failed to call webhook: ' +
            `Post "${config.url}/check?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
        );
      }),
    ).pipe(Effect.provide(cluster())),
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
    }).pipe(Effect.provide(cluster())),
  );

  it("is a root task of the runtime", () => {
    const tasks: ReadonlyArray<RootTasks.RootTask> = [Admission.task];
    assert.strictEqual(tasks.length, 1);
  });

  it.live("operate runs the operator and its webhooks together, sharing the objects' memos", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ns = "adm-operate";
        const api = yield* KubeApi;
        yield* setUp(ns);
        yield* removedAtEnd("op.kopf.dev");
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
            namespaces: [ns],
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
        yield* untilServed(ns);
        const rejected = yield* Effect.flip(
          api.create(RESOURCE, object(ns, "bad-two", { field: "bad" }) as never),
        );
        assert.include(rejected.message, "The field must not be bad.");
        yield* api.create(RESOURCE, object(ns, "good-two", { field: "fine" }) as never);
        const handled = yield* Effect.eventually(
          api
            .get(RESOURCE, { name: "good-two", namespace: ns })
            .pipe(Effect.filterOrFail((b: any) => b.status?.created !== undefined)),
        );
        assert.deepStrictEqual((handled as any).status.created, { done: true });
        assert.strictEqual((handled as any).spec.size, "medium");
        // An UPDATE request's handlers get the memo the object's handlers share (Kopf's memo).
        yield* api.patch(
          RESOURCE,
          { name: "good-two", namespace: ns },
          { type: "merge", body: { spec: { field: "changed" } } },
        );
        assert.include(memos, "yes");
        yield* Fiber.interrupt(fiber);
      }),
    ).pipe(Effect.provide(cluster())),
  );
});

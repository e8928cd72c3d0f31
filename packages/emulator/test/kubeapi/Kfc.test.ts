// Covers the KFC bridge: kubernetes-fluent-client's K8s() reaches the emulator's HTTPS server with
// the operator's credentials (with $KUBECONFIG left alone), sees what KubeApi wrote and vice
// versa, and follows a change of credentials in the vault.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, describe, it } from "@effect/vitest";
import { CredentialsVault, KfcBridge, KubeApi, KubeClient } from "@kopf/client";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { K8s, kind } from "kubernetes-fluent-client";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import { EmulatorServer } from "../../src/server/EmulatorServer.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-kfc-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = "kfc-token";
const configmaps = Resource.make({ group: "", version: "v1", plural: "configmaps", namespaced: true });

const serverLayer = EmulatorServer.layer({ tls: true, token: TOKEN }).pipe(
  Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
);

const withOperator = <A, E>(
  token: string,
  body: Effect.Effect<A, E, KubeApi | CredentialsVault | KfcBridge.KfcBridge>,
) =>
  Effect.gen(function* () {
    const server = yield* EmulatorServer;
    const path = join(dir, `operator-${token}.yaml`);
    writeFileSync(path, server.kubeconfig({ token }));
    const operator = KfcBridge.layer({ interval: "100 millis" }).pipe(
      Layer.provideMerge(KubeClient.layer({ kubeconfig: { paths: path } })),
    );
    return yield* body.pipe(Effect.provide(Layer.fresh(operator)));
  }).pipe(Effect.provide(Layer.fresh(serverLayer)));

describe("KFC through the bridge", () => {
  it.live("K8s() uses the operator's cluster and credentials; both clients see each other's writes", () =>
    withOperator(
      TOKEN,
      Effect.gen(function* () {
        const before = process.env.KUBECONFIG;
        yield* Effect.promise(() =>
          K8s(kind.ConfigMap).Create({
            metadata: { name: "from-kfc", namespace: "default" },
            data: { a: "1" },
          }),
        );
        const api = yield* KubeApi;
        const seen = yield* api.get(configmaps, { namespace: "default", name: "from-kfc" });
        assert.deepStrictEqual(seen.data, { a: "1" });
        yield* api.create(configmaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "from-api", namespace: "default" },
        });
        const fetched = yield* Effect.promise(() =>
          K8s(kind.ConfigMap).InNamespace("default").Get("from-api"),
        );
        assert.strictEqual(fetched.metadata?.name, "from-api");
        assert.strictEqual(process.env.KUBECONFIG, before);
      }),
    ),
  );

  it.live("follows changed credentials: a rejected token is replaced in KFC's kubeconfig", () =>
    withOperator(
      "wrong-token",
      Effect.gen(function* () {
        const rejected = yield* Effect.tryPromise({
          try: () => K8s(kind.Namespace).Get("default"),
          catch: (error) => error as { status?: number },
        }).pipe(Effect.flip);
        assert.strictEqual(rejected.status, 401);
        const vault = yield* CredentialsVault;
        const server = (yield* vault.select).info.server;
        const caData = (yield* vault.select).info.caData;
        yield* vault.populate({ rotated: { server, caData, token: TOKEN, priority: 100, trustEnv: false } });
        yield* (yield* KfcBridge.KfcBridge).refresh;
        const ns = yield* Effect.promise(() => K8s(kind.Namespace).Get("default"));
        assert.strictEqual(ns.metadata?.name, "default");
      }),
    ),
  );

  it.live("the environment is not changed while the operator runs", () =>
    Effect.gen(function* () {
      const before = process.env.KUBECONFIG;
      let during: string | undefined;
      yield* withOperator(
        TOKEN,
        Effect.sync(() => {
          during = process.env.KUBECONFIG;
        }),
      );
      assert.strictEqual(during, before);
      assert.strictEqual(process.env.KUBECONFIG, before);
    }),
  );
});

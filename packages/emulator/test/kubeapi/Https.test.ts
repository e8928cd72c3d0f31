// Covers the live client (kubeconfig login + undici transport + vault + retries) against the
// emulator's HTTPS server: every auth form (bearer token, client certificate issued by the
// emulator's CA, an exec plugin script), TLS verification (another CA fails, insecure passes,
// tls-server-name honoured), 401 with re-login after the token on disk has changed, 429 with
// Retry-After and retried 500s through the fault injector, and a watch stream over HTTPS.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, describe, it } from "@effect/vitest";
import { CredentialsVault, KubeApi, KubeClient, type WatchEvent } from "@kopf/client";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import { EmulatorServer } from "../../src/server/EmulatorServer.ts";
import * as CertificateAuthority from "../../src/tls/CertificateAuthority.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-https-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const TOKEN = "right-token";

const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });
const configmaps = Resource.make({ group: "", version: "v1", plural: "configmaps", namespaced: true });

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A kubeconfig for the server with the given cluster extras and user fields (YAML as JSON). */
const kubeconfig = (
  server: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
): string => {
  const path = join(dir, `kubeconfig-${++counter}`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "emu", cluster: { server, ...cluster } }],
      users: [{ name: "me", user }],
      contexts: [{ name: "emu", context: { cluster: "emu", user: "me", namespace: "default" } }],
      "current-context": "emu",
    }),
  );
  return path;
};

const emulated = Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer);
const serverLayer = EmulatorServer.layer({ tls: true, token: TOKEN }).pipe(Layer.provideMerge(emulated));

const fast = Settings.make({ networking: { errorBackoffs: [0.05, 0.05, 0.05] } });
const settings = fast._tag === "Success" ? fast.success : Settings.defaults;

/** Run `body` with a live client logged in from the kubeconfig at `path`, against a fresh server. */
const withServer = <A, E>(
  body: (
    server: EmulatorServer["Service"],
  ) => Effect.Effect<A, E, KubeEmulator | FaultInjector | EmulatorServer>,
) => Effect.flatMap(EmulatorServer, body).pipe(Effect.provide(Layer.fresh(serverLayer)));

const live = (path: string) => Layer.fresh(KubeClient.layer({ kubeconfig: { paths: path } }));

/** Run `body` with a live client logged in with the server's CA and the accepted token. */
const asOperator = <A, E, R>(server: EmulatorServer["Service"], body: Effect.Effect<A, E, R>) =>
  body.pipe(
    Effect.provide(
      live(kubeconfig(server.url, { "certificate-authority-data": b64(server.caPem) }, { token: TOKEN })),
    ),
    Effect.provideService(OperatorSettings, settings),
  );

const listNamespaces = (path: string) =>
  Effect.flatMap(KubeApi, (api) => api.list(namespaces)).pipe(
    Effect.map((list) => list.items.map((item) => item.metadata?.name)),
    Effect.provide(live(path)),
    Effect.provideService(OperatorSettings, settings),
  );

describe("authentication over HTTPS", () => {
  it.live("a bearer token with the CA from certificate-authority-data", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const path = kubeconfig(
          server.url,
          { "certificate-authority-data": b64(server.caPem) },
          { token: TOKEN },
        );
        assert.include(yield* listNamespaces(path), "default");
      }),
    ),
  );

  it.live("a client certificate issued by the emulator's CA", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const pair = yield* server.issueClientCertificate({ username: "alice", groups: ["system:masters"] });
        const path = kubeconfig(
          server.url,
          { "certificate-authority-data": b64(server.caPem) },
          { "client-certificate-data": b64(pair.certPem), "client-key-data": b64(pair.keyPem) },
        );
        assert.include(yield* listNamespaces(path), "kube-system");
      }),
    ),
  );

  it.live("an exec credential plugin (a small script)", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const script = join(dir, `plugin-${++counter}.sh`);
        writeFileSync(
          script,
          `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`,
        );
        chmodSync(script, 0o755);
        const path = kubeconfig(
          server.url,
          { "certificate-authority-data": b64(server.caPem) },
          {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: script,
              interactiveMode: "Never",
            },
          },
        );
        assert.include(yield* listNamespaces(path), "default");
      }),
    ),
  );

  it.live("401 invalidates the credentials; the re-login reads the rotated token from disk", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const ca = { "certificate-authority-data": b64(server.caPem) };
        const path = kubeconfig(server.url, ca, { token: "stale-token" });
        yield* Effect.gen(function* () {
          const api = yield* KubeApi;
          // The vault has logged in with the stale token; the token on disk rotates afterwards.
          const vault = yield* CredentialsVault;
          assert.strictEqual((yield* vault.select).info.token, "stale-token");
          writeFileSync(
            path,
            JSON.stringify({
              clusters: [{ name: "emu", cluster: { server: server.url, ...ca } }],
              users: [{ name: "me", user: { token: TOKEN } }],
              contexts: [{ name: "emu", context: { cluster: "emu", user: "me" } }],
              "current-context": "emu",
            }),
          );
          const list = yield* api.list(namespaces);
          assert.isAbove(list.items.length, 0);
          assert.strictEqual((yield* vault.select).info.token, TOKEN);
        }).pipe(Effect.provide(live(path)), Effect.provideService(OperatorSettings, settings));
      }),
    ),
  );
});

describe("in-cluster service account over HTTPS", () => {
  it.live("token, CA and namespace from the mounted files; a rotated token is picked up after a 401", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const mount = join(dir, `serviceaccount-${++counter}`);
        mkdirSync(mount);
        writeFileSync(join(mount, "token"), "old-token\n");
        writeFileSync(join(mount, "namespace"), "operators");
        writeFileSync(join(mount, "ca.crt"), server.caPem);
        const env = { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.port) };
        const live = KubeClient.layer({
          kubeconfig: { env: { KUBECONFIG: join(dir, "no-kubeconfig") } },
          serviceAccount: { directory: mount, env },
        });
        yield* Effect.gen(function* () {
          const vault = yield* CredentialsVault;
          const first = yield* vault.select;
          assert.strictEqual(first.info.token, "old-token");
          assert.strictEqual(first.info.defaultNamespace, "operators");
          assert.strictEqual(first.key, "login_with_service_account");
          writeFileSync(join(mount, "token"), `${TOKEN}\n`);
          const api = yield* KubeApi;
          assert.isAbove((yield* api.list(namespaces)).items.length, 0);
          assert.strictEqual((yield* vault.select).info.token, TOKEN);
        }).pipe(Effect.provide(Layer.fresh(live)), Effect.provideService(OperatorSettings, settings));
      }),
    ),
  );
});

describe("TLS verification", () => {
  it.live("a server certificate from another CA is refused; insecure-skip-tls-verify accepts it", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const other = yield* CertificateAuthority.make();
        const wrong = kubeconfig(
          server.url,
          { "certificate-authority-data": b64(other.certPem) },
          { token: TOKEN },
        );
        const error = yield* Effect.flip(listNamespaces(wrong));
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "TransportError");
        const insecure = kubeconfig(server.url, { "insecure-skip-tls-verify": true }, { token: TOKEN });
        assert.include(yield* listNamespaces(insecure), "default");
      }),
    ),
  );

  it.live("tls-server-name is the name verified", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const ca = { "certificate-authority-data": b64(server.caPem) };
        const good = kubeconfig(server.url, { ...ca, "tls-server-name": "localhost" }, { token: TOKEN });
        assert.include(yield* listNamespaces(good), "default");
        const bad = kubeconfig(
          server.url,
          { ...ca, "tls-server-name": "elsewhere.example" },
          { token: TOKEN },
        );
        const error = yield* Effect.flip(listNamespaces(bad));
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "TransportError");
      }),
    ),
  );
});

describe("faults over HTTPS", () => {
  it.live("429 with Retry-After is waited out; 500s are retried", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* asOperator(
          server,
          Effect.gen(function* () {
            const api = yield* KubeApi;
            yield* faults.injectFailure({
              status: 429,
              retryAfterSeconds: 1,
              verb: "list",
              resource: "namespaces",
            });
            const start = yield* Clock.currentTimeMillis;
            yield* api.list(namespaces);
            assert.isAtLeast((yield* Clock.currentTimeMillis) - start, 1000);
            yield* faults.injectFailure({ status: 500, verb: "list", resource: "namespaces", times: 3 });
            assert.isAbove((yield* api.list(namespaces)).items.length, 0);
            assert.deepStrictEqual((yield* faults.pending).failures, []);
          }),
        );
      }),
    ),
  );

  it.live("a watch streams over HTTPS and ends when the server drops it", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        yield* asOperator(
          server,
          Effect.gen(function* () {
            const api = yield* KubeApi;
            const rv = (yield* api.list(configmaps, { namespace: "default" })).metadata?.resourceVersion;
            const seen: Array<WatchEvent> = [];
            const fiber = yield* Effect.forkChild(
              Stream.runForEach(
                api.watch(configmaps, { namespace: "default", resourceVersion: rv }),
                (event) => Effect.sync(() => seen.push(event)),
              ),
            );
            yield* api.create(configmaps, {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "x1", namespace: "default" },
            });
            const changes = () => seen.filter((e) => e.type !== "BOOKMARK");
            for (let i = 0; i < 500 && changes().length === 0; i++) yield* Effect.sleep("10 millis");
            yield* kube.dropWatches;
            const exit = yield* Fiber.await(fiber);
            assert.strictEqual(exit._tag, "Success");
            assert.deepStrictEqual(
              changes().map((e) => [e.type, e.object.metadata?.name]),
              [["ADDED", "x1"]],
            );
          }),
        );
      }),
    ),
  );
});

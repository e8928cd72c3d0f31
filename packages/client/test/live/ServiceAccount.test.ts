// Covers the in-cluster login (docs/behaviour/operator.md#logins) with temp files: token, namespace and CA; the server
// from KUBERNETES_SERVICE_HOST/PORT (IPv6 bracketed) or kubernetes.default.svc; token rotation
// picked up on expiry and on a 401 through the vault; the default login's choice and priorities.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { TestClock } from "effect/testing";
import { KubeApi } from "../../src/KubeApi.ts";
import { KubeApiError } from "../../src/KubeApiError.ts";
import * as KubeClient from "../../src/live/KubeClient.ts";
import * as ServiceAccountLogin from "../../src/live/ServiceAccount.ts";
import { CredentialsVault } from "../../src/Vault.ts";

const root = mkdtempSync(join(tmpdir(), "kopf-sa-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
const mount = (files: Record<string, string>) => {
  const directory = mkdtempSync(join(root, `sa-${++counter}-`));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
  return directory;
};

describe("service account login", () => {
  it.effect("reads the token (stripped), the namespace and the CA", () =>
    Effect.gen(function* () {
      const directory = mount({ token: "sa-token\n", namespace: "operators\n", "ca.crt": "PEM" });
      const info = yield* ServiceAccountLogin.login({
        directory,
        env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" },
      });
      assert.strictEqual(info.server, "https://10.96.0.1:443");
      assert.strictEqual(info.token, "sa-token");
      assert.strictEqual(info.defaultNamespace, "operators");
      assert.strictEqual(info.caPath, join(directory, "ca.crt"));
      assert.strictEqual(info.priority, 20);
    }),
  );

  it.effect("works without namespace and CA files", () =>
    Effect.gen(function* () {
      const info = yield* ServiceAccountLogin.login({ directory: mount({ token: "t" }), env: {} });
      assert.strictEqual(info.server, "https://kubernetes.default.svc");
      assert.isUndefined(info.caPath);
      assert.isUndefined(info.defaultNamespace);
    }),
  );

  it("brackets IPv6 hosts", () => {
    assert.strictEqual(
      ServiceAccountLogin.serverOf({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }),
      "https://[fd00::1]:443",
    );
  });

  it.effect("an empty or missing token is an error naming the file", () =>
    Effect.gen(function* () {
      const empty = mount({ token: "  \n" });
      const error = yield* Effect.flip(ServiceAccountLogin.login({ directory: empty, env: {} }));
      assert.include(error.message, join(empty, "token"));
      const missing = mount({});
      assert.isFalse(yield* ServiceAccountLogin.isAvailable({ directory: missing }));
      const error2 = yield* Effect.flip(ServiceAccountLogin.login({ directory: missing, env: {} }));
      assert.include(error2.message, join(missing, "token"));
    }),
  );

  it.effect("a rotated token is picked up when the credentials expire, and after a 401", () =>
    Effect.gen(function* () {
      const directory = mount({ token: "one" });
      const login = ServiceAccountLogin.login({ directory, env: {}, refreshInterval: 60 }).pipe(
        Effect.map((info) => ({ sa: info })),
      );
      yield* Effect.gen(function* () {
        const vault = yield* CredentialsVault;
        assert.strictEqual((yield* vault.select).info.token, "one");
        writeFileSync(join(directory, "token"), "two");
        assert.strictEqual((yield* vault.select).info.token, "one");
        yield* TestClock.adjust("60 seconds");
        assert.strictEqual((yield* vault.select).info.token, "two");
        writeFileSync(join(directory, "token"), "three");
        const tokens: Array<string> = [];
        yield* vault.withCredentials((item) => {
          tokens.push(item.info.token!);
          return item.info.token === "two"
            ? Effect.fail(KubeApiError.fromResponse({ status: 401, headers: {}, body: "" })!)
            : Effect.void;
        });
        assert.deepStrictEqual(tokens, ["two", "three"]);
      }).pipe(Effect.provide(Layer.fresh(CredentialsVault.layer({ login }))));
    }),
  );
});

describe("the default login", () => {
  const kubeconfig = () => {
    const path = join(mount({}), "config");
    writeFileSync(
      path,
      "clusters: [{name: c, cluster: {server: 'https://kc.example'}}]\nusers: [{name: u, user: {token: kc}}]\n" +
        "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    );
    return path;
  };

  it.effect("uses both the kubeconfig and the service account when both exist", () =>
    Effect.gen(function* () {
      const credentials = yield* KubeClient.defaultLogin({
        kubeconfig: { env: { KUBECONFIG: kubeconfig() } },
        serviceAccount: { directory: mount({ token: "sa" }), env: {} },
      });
      const entries = credentials as Record<string, { token?: string; priority: number }>;
      assert.deepStrictEqual(Object.keys(entries).sort(), [
        "login_with_kubeconfig",
        "login_with_service_account",
      ]);
      assert.strictEqual(entries.login_with_kubeconfig?.priority, 10);
      assert.strictEqual(entries.login_with_service_account?.priority, 20);
    }),
  );

  it.effect("an explicit kubeconfig excludes the service account", () =>
    Effect.gen(function* () {
      const credentials = yield* KubeClient.defaultLogin({
        kubeconfig: { paths: kubeconfig() },
        serviceAccount: { directory: mount({ token: "sa" }), env: {} },
      });
      assert.deepStrictEqual(Object.keys(credentials), ["login_with_kubeconfig"]);
    }),
  );

  it.live("a broken kubeconfig reaches API callers as a LoginError naming the file", () =>
    Effect.gen(function* () {
      const path = join(mount({}), "config");
      writeFileSync(path, "clusters: [unclosed");
      const error = yield* Effect.flatMap(KubeApi, (api) =>
        api.raw({ method: "GET", path: "/version" }),
      ).pipe(Effect.provide(KubeClient.layer({ kubeconfig: { paths: path } })), Effect.flip);
      assert.strictEqual(error._tag, "LoginError");
      assert.include(error.message, path);
      assert.include(error.message, "broken kubeconfig");
    }),
  );

  it.effect("nothing available is a NoConfiguration error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        KubeClient.defaultLogin({
          kubeconfig: { env: { KUBECONFIG: join(root, "none") } },
          serviceAccount: { directory: join(root, "none") },
        }),
      );
      assert.strictEqual(error.reason, "NoConfiguration");
    }),
  );
});

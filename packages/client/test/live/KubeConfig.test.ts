// Covers the kubeconfig login matrix (docs/behaviour/operator.md#logins) with temp files: bearer tokens, client
// certificates (data and relative paths), basic auth, exec credential plugins (a small script,
// cached until expiry, failures reported), several files in KUBECONFIG (first wins), explicit
// contexts, TLS flags, and broken or missing files named in the error.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, assert, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import * as Effect from "effect/Effect";
import { TestClock } from "effect/testing";
import * as KubeConfigLogin from "../../src/live/KubeConfig.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-kubeconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
const file = (text: string, name = `config-${++counter}.yaml`) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
const b64 = (text: string) => Buffer.from(text).toString("base64");

const config = (parts: { clusters?: string; users?: string; contexts?: string; current?: string }) => `
apiVersion: v1
kind: Config
clusters:
${parts.clusters ?? "- name: c1\n  cluster:\n    server: https://c1.example:6443"}
users:
${parts.users ?? "- name: u1\n  user:\n    token: token-1"}
contexts:
${parts.contexts ?? "- name: ctx1\n  context:\n    cluster: c1\n    user: u1\n    namespace: ns1"}
${parts.current === undefined ? "current-context: ctx1" : parts.current}
`;

const plugin = (name: string, body: string) => {
  const path = file(`#!/bin/sh\n${body}\n`, name);
  chmodSync(path, 0o755);
  return path;
};

const login = (options: KubeConfigLogin.KubeConfigOptions) => KubeConfigLogin.make({ env: {}, ...options });

describe("credentials from one file", () => {
  it.effect("a bearer token, the server, the CA data and the namespace", () =>
    Effect.gen(function* () {
      const path = file(
        config({
          clusters: `- name: c1\n  cluster:\n    server: https://c1.example:6443\n    certificate-authority-data: ${b64(PEM)}`,
        }),
      );
      const info = yield* login({ paths: path });
      assert.strictEqual(info.server, "https://c1.example:6443");
      assert.strictEqual(info.token, "token-1");
      assert.strictEqual(info.scheme, "Bearer");
      assert.strictEqual(info.caData, b64(PEM));
      assert.strictEqual(info.defaultNamespace, "ns1");
      assert.strictEqual(info.priority, 10);
      assert.isUndefined(info.expiration);
      assert.isUndefined(info.insecure);
    }),
  );

  it.effect("client certificates as data, and as paths relative to the kubeconfig", () =>
    Effect.gen(function* () {
      const withData = yield* login({
        paths: file(
          config({
            users: `- name: u1\n  user:\n    client-certificate-data: ${b64(PEM)}\n    client-key-data: ${b64(KEY)}`,
          }),
        ),
      });
      assert.strictEqual(withData.certificateData, b64(PEM));
      assert.strictEqual(withData.privateKeyData, b64(KEY));
      assert.isUndefined(withData.token);
      file(PEM, "client.crt");
      file(KEY, "client.key");
      const withPaths = yield* login({
        paths: file(
          config({
            users: "- name: u1\n  user:\n    client-certificate: client.crt\n    client-key: ./client.key",
          }),
        ),
      });
      assert.strictEqual(withPaths.certificatePath, join(dir, "client.crt"));
      assert.strictEqual(withPaths.privateKeyPath, join(dir, "client.key"));
      assert.isUndefined(withPaths.certificateData);
    }),
  );

  it.effect("networking.trustEnv is carried into the credentials", () =>
    Effect.gen(function* () {
      const path = file(config({}));
      assert.isFalse((yield* login({ paths: path })).trustEnv);
      const settings = Settings.make({ networking: { trustEnv: true } });
      if (settings._tag === "Failure") throw new Error("settings");
      const info = yield* login({ paths: path }).pipe(
        Effect.provideService(OperatorSettings, settings.success),
      );
      assert.isTrue(info.trustEnv);
    }),
  );

  it.effect("an auth provider's access-token, even for providers client-node does not know", () =>
    Effect.gen(function* () {
      const info = yield* login({
        paths: file(
          config({
            users:
              "- name: u1\n  user:\n    auth-provider:\n      name: custom\n      config:\n        access-token: at-1",
          }),
        ),
      });
      assert.strictEqual(info.token, "at-1");
      assert.strictEqual(info.scheme, "Bearer");
    }),
  );

  it.effect("basic auth", () =>
    Effect.gen(function* () {
      const info = yield* login({
        paths: file(config({ users: "- name: u1\n  user:\n    username: admin\n    password: s3cret" })),
      });
      assert.strictEqual(info.username, "admin");
      assert.strictEqual(info.password, "s3cret");
      assert.isUndefined(info.token);
    }),
  );

  it.effect("insecure-skip-tls-verify, tls-server-name, proxy-url and a CA file", () =>
    Effect.gen(function* () {
      file(PEM, "ca.crt");
      const info = yield* login({
        paths: file(
          config({
            clusters:
              "- name: c1\n  cluster:\n    server: https://10.0.0.1:6443\n    insecure-skip-tls-verify: true\n" +
              "    tls-server-name: kubernetes.local\n    proxy-url: http://proxy:3128\n    certificate-authority: ca.crt",
          }),
        ),
      });
      assert.strictEqual(info.insecure, true);
      assert.strictEqual(info.tlsServerName, "kubernetes.local");
      assert.strictEqual(info.proxyUrl, "http://proxy:3128");
      assert.strictEqual(info.caPath, join(dir, "ca.crt"));
    }),
  );
});

describe("exec credential plugins", () => {
  it.effect("runs the plugin, uses its token, caches it while valid, and expires the credentials", () =>
    Effect.gen(function* () {
      const runs = join(dir, "exec-runs");
      writeFileSync(runs, "");
      const script = plugin(
        "exec-ok.sh",
        `echo run >> ${runs}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",` +
          `"status":{"token":"exec-token","expirationTimestamp":"2999-01-01T00:00:00Z"}}'`,
      );
      const path = file(
        config({
          users:
            `- name: u1\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n` +
            `      command: ${script}\n      interactiveMode: Never`,
        }),
      );
      yield* TestClock.setTime(1_000_000);
      const make = login({ paths: path, refreshInterval: 30 });
      const first = yield* make;
      const second = yield* make;
      assert.strictEqual(first.token, "exec-token");
      assert.strictEqual(second.token, "exec-token");
      assert.strictEqual(first.expiration, 1_000_000 + 30_000);
      assert.strictEqual(readFileSync(runs, "utf-8").trim().split("\n").length, 1);
    }),
  );

  it.effect("a failing plugin is a PluginFailed error with its stderr", () =>
    Effect.gen(function* () {
      const script = plugin("exec-bad.sh", "echo 'no cloud session' >&2\nexit 3");
      const path = file(
        config({
          users: `- name: u1\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${script}`,
        }),
      );
      const error = yield* Effect.flip(login({ paths: path }));
      assert.strictEqual(error.reason, "PluginFailed");
      assert.include(error.message, "no cloud session");
      assert.include(error.message, script);
    }),
  );
});

describe("more forms of users", () => {
  it.effect("a token file, re-read at each login, and the credentials expire", () =>
    Effect.gen(function* () {
      file("file-token-1\n", "token.txt");
      const make = login({ paths: file(config({ users: "- name: u1\n  user:\n    tokenFile: token.txt" })) });
      assert.strictEqual((yield* make).token, "file-token-1");
      file("file-token-2\n", "token.txt");
      const second = yield* make;
      assert.strictEqual(second.token, "file-token-2");
      assert.isDefined(second.expiration);
    }),
  );

  it.effect("an exec plugin gets its env and KUBERNETES_EXEC_INFO, and may give a client certificate", () =>
    Effect.gen(function* () {
      const output = file(
        JSON.stringify({
          kind: "ExecCredential",
          status: { clientCertificateData: PEM, clientKeyData: KEY },
        }),
        "exec-cert.json",
      );
      plugin(
        "exec-cert.sh",
        `test "$PLUGIN_MODE" = cert || exit 9\necho "$KUBERNETES_EXEC_INFO" | grep -q '"interactive":false' || exit 8\ncat ${output}`,
      );
      const path = file(
        config({
          users:
            `- name: u1\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./exec-cert.sh\n` +
            "      env:\n      - name: PLUGIN_MODE\n        value: cert",
        }),
      );
      const exit = yield* Effect.exit(login({ paths: path }));
      assert.strictEqual(exit._tag, "Success", JSON.stringify(exit));
      if (exit._tag === "Success") {
        assert.strictEqual(exit.value.certificateData, PEM);
        assert.strictEqual(exit.value.privateKeyData, KEY);
        assert.isUndefined(exit.value.token);
      }
    }),
  );

  it.effect("an exec plugin's expirationTimestamp shortens the refresh", () =>
    Effect.gen(function* () {
      const script = plugin(
        "exec-soon.sh",
        `echo '{"kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"1970-01-01T00:00:20Z"}}'`,
      );
      yield* TestClock.setTime(10_000);
      const info = yield* login({
        paths: file(config({ users: `- name: u1\n  user:\n    exec:\n      command: ${script}` })),
      });
      assert.strictEqual(info.expiration, 20_000);
    }),
  );

  it.effect("an exec plugin printing garbage fails without quoting it", () =>
    Effect.gen(function* () {
      const script = plugin("exec-garbage.sh", "echo 'not-json-s3cret'");
      const error = yield* Effect.flip(
        login({ paths: file(config({ users: `- name: u1\n  user:\n    exec:\n      command: ${script}` })) }),
      );
      assert.strictEqual(error.reason, "PluginFailed");
      assert.include(error.message, "not JSON");
      assert.notInclude(error.message, "s3cret");
    }),
  );

  it.effect("a known auth provider (gcp) runs through client-node, loaded for it only", () =>
    Effect.gen(function* () {
      const info = yield* login({
        paths: file(
          config({
            users:
              "- name: u1\n  user:\n    auth-provider:\n      name: gcp\n      config:\n" +
              "        access-token: gcp-token\n        expiry: 2999-01-01T00:00:00Z",
          }),
        ),
      });
      assert.strictEqual(info.token, "gcp-token");
      assert.isDefined(info.expiration);
    }),
  );
});

describe("several files and contexts", () => {
  const first = () =>
    file(
      config({
        clusters: "- name: shared\n  cluster:\n    server: https://first.example",
        users: "- name: shared\n  user:\n    token: first-token",
        contexts: "- name: a\n  context:\n    cluster: shared\n    user: shared",
        current: "current-context: a",
      }),
    );
  const second = () =>
    file(
      config({
        clusters:
          "- name: shared\n  cluster:\n    server: https://second.example\n" +
          "- name: other\n  cluster:\n    server: https://other.example",
        users:
          "- name: shared\n  user:\n    token: second-token\n- name: other\n  user:\n    token: other-token",
        contexts:
          "- name: a\n  context:\n    cluster: other\n    user: other\n" +
          "- name: b\n  context:\n    cluster: other\n    user: other\n    namespace: nsb",
        current: "current-context: b",
      }),
    );

  it.effect("KUBECONFIG merges files: the first definition of each name and current-context win", () =>
    Effect.gen(function* () {
      const env = { KUBECONFIG: [first(), join(dir, "missing.yaml"), second()].join(delimiter) };
      const info = yield* KubeConfigLogin.make({ env });
      assert.strictEqual(info.server, "https://first.example");
      assert.strictEqual(info.token, "first-token");
    }),
  );

  it.effect("an explicit context may come from a later file", () =>
    Effect.gen(function* () {
      const env = { KUBECONFIG: [first(), second()].join(delimiter) };
      const info = yield* KubeConfigLogin.make({ env, context: "b" });
      assert.strictEqual(info.server, "https://other.example");
      assert.strictEqual(info.token, "other-token");
      assert.strictEqual(info.defaultNamespace, "nsb");
    }),
  );

  it.effect("~/.kube/config when KUBECONFIG is not set", () =>
    Effect.gen(function* () {
      const home = mkdtempSync(join(dir, "home-"));
      const kube = join(home, ".kube");
      mkdirSync(kube);
      writeFileSync(join(kube, "config"), config({}));
      const info = yield* KubeConfigLogin.make({ env: { HOME: home } });
      assert.strictEqual(info.token, "token-1");
      assert.isTrue(yield* KubeConfigLogin.isAvailable({ env: { HOME: home } }));
      assert.isFalse(yield* KubeConfigLogin.isAvailable({ env: { HOME: join(dir, "nowhere") } }));
    }),
  );
});

describe("errors name the file and the problem", () => {
  it.effect.each([
    ["broken YAML", () => file("clusters: [unclosed"), /broken kubeconfig/],
    ["an empty file", () => file(""), /is empty/],
    [
      "a cluster without a server",
      () => file(config({ clusters: "- name: c1\n  cluster: {}" })),
      /server is missing/,
    ],
    ["no current-context", () => file(config({ current: "" })), /no current-context/],
    [
      "an undefined cluster",
      () => file(config({ contexts: "- name: ctx1\n  context:\n    cluster: nope\n    user: u1" })),
      /undefined cluster "nope"/,
    ],
    [
      "an undefined user",
      () => file(config({ contexts: "- name: ctx1\n  context:\n    cluster: c1\n    user: nobody" })),
      /undefined user "nobody"/,
    ],
    [
      "a bad server URL",
      () => file(config({ clusters: "- name: c1\n  cluster:\n    server: c1.example" })),
      /http/,
    ],
  ] as const)("%s", ([, make, message]) =>
    Effect.gen(function* () {
      const path = make();
      const error = yield* Effect.flip(login({ paths: path }));
      assert.strictEqual(error.reason, "InvalidConfiguration");
      assert.match(error.message, message);
      assert.include(error.message, path);
    }),
  );

  it.effect("an unknown context", () =>
    Effect.gen(function* () {
      const path = file(config({}));
      const error = yield* Effect.flip(login({ paths: path, context: "prod" }));
      assert.include(error.message, 'the context "prod" is not defined');
      assert.include(error.message, path);
    }),
  );

  it.effect("a missing explicit file", () =>
    Effect.gen(function* () {
      const path = join(dir, "does-not-exist.yaml");
      const error = yield* Effect.flip(login({ paths: path }));
      assert.include(error.message, path);
      assert.include(error.message, "ENOENT");
    }),
  );

  it.effect("no kubeconfig anywhere", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(KubeConfigLogin.make({ env: { KUBECONFIG: join(dir, "nope.yaml") } }));
      assert.strictEqual(error.reason, "NoConfiguration");
    }),
  );
});

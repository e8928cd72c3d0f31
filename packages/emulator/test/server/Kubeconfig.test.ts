// Covers kubeconfig rendering: HTTPS with the CA inline, plain HTTP with insecure-skip-tls-verify,
// token and client-certificate users, the context's namespace and names; and writing (0600,
// missing directories created, unwritable paths reported).
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import { parse } from "yaml";
import * as Kubeconfig from "../../src/server/Kubeconfig.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("Kubeconfig.render", () => {
  it.each([
    [
      "HTTPS with a token",
      { server: "https://127.0.0.1:6443", caPem: "CA", token: "t" },
      { server: "https://127.0.0.1:6443", "certificate-authority-data": b64("CA") },
      { token: "t" },
    ],
    [
      "plain HTTP with the default token",
      { server: "http://127.0.0.1:8080" },
      { server: "http://127.0.0.1:8080", "insecure-skip-tls-verify": true },
      { token: "kopf-emulator" },
    ],
    [
      "a client certificate",
      {
        server: "https://127.0.0.1:6443",
        caPem: "CA",
        clientCertificate: { certPem: "CERT", keyPem: "KEY" },
      },
      { server: "https://127.0.0.1:6443", "certificate-authority-data": b64("CA") },
      { "client-certificate-data": b64("CERT"), "client-key-data": b64("KEY") },
    ],
  ] as const)("%s", (_, options, cluster, user) => {
    const config = parse(Kubeconfig.render(options));
    assert.strictEqual(config.apiVersion, "v1");
    assert.strictEqual(config.kind, "Config");
    assert.deepStrictEqual(config.clusters, [{ name: "kopf-emulator", cluster }]);
    assert.deepStrictEqual(config.users, [{ name: "kopf-emulator", user }]);
    assert.deepStrictEqual(config.contexts, [
      {
        name: "kopf-emulator",
        context: { cluster: "kopf-emulator", user: "kopf-emulator", namespace: "default" },
      },
    ]);
    assert.strictEqual(config["current-context"], "kopf-emulator");
  });

  it("names the entries and sets the namespace as asked", () => {
    const config = parse(Kubeconfig.render({ server: "http://x", name: "emu", namespace: "ns1" }));
    assert.deepStrictEqual(config.contexts, [
      { name: "emu", context: { cluster: "emu", user: "emu", namespace: "ns1" } },
    ]);
    assert.strictEqual(config["current-context"], "emu");
  });
});

describe("Kubeconfig.write", () => {
  it.effect("writes a private file, creating directories", () =>
    Effect.gen(function* () {
      const path = join(mkdtempSync(join(tmpdir(), "kopf-kc-")), "a", "b", "config");
      yield* Kubeconfig.write(path, { server: "http://x" });
      assert.strictEqual(statSync(path).mode & 0o777, 0o600);
      assert.strictEqual(parse(readFileSync(path, "utf8")).clusters[0].cluster.server, "http://x");
    }),
  );

  it.effect("reports a path it cannot write", () =>
    Effect.gen(function* () {
      const file = join(mkdtempSync(join(tmpdir(), "kopf-kc-")), "file");
      writeFileSync(file, "not a directory");
      const error = yield* Effect.flip(Kubeconfig.write(join(file, "config"), { server: "http://x" }));
      assert.strictEqual(error.reason, "Write");
      assert.include(error.message, `cannot write ${join(file, "config")}`);
    }),
  );
});

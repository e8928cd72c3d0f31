/**
 * kopf.loginWithKubeconfig / kopf.loginWithServiceAccount: connection info from a kubeconfig or a
 * service account directory, `null` when there is none, and usable as an on.login handler's
 * result (the runtime's login activity accepts it).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry as CoreRegistry } from "@kopf/registry";
import { Operator } from "@kopf/runtime";
import * as Effect from "effect/Effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as kopf from "../src/index.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kopf-logins-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c1, cluster: { server: "https://k8s.example:6443", insecure-skip-tls-verify: true } }]
users: [{ name: u1, user: { token: secret-token } }]
contexts: [{ name: ctx1, context: { cluster: c1, user: u1, namespace: ns1 } }]
current-context: ctx1
`;

describe("login helpers", () => {
  it("read a kubeconfig, or answer null without one", async () => {
    const path = join(dir, "config");
    await writeFile(path, KUBECONFIG);
    const info = await kopf.loginWithKubeconfig({ env: { KUBECONFIG: path } });
    expect(info).toMatchObject({ server: "https://k8s.example:6443", token: "secret-token" });
    expect(await kopf.loginWithKubeconfig({ env: { KUBECONFIG: join(dir, "absent") } })).toBeNull();
  });

  it("read a service account, or answer null outside a cluster", async () => {
    await writeFile(join(dir, "token"), "sa-token\n");
    await writeFile(join(dir, "namespace"), "ns2");
    const info = await kopf.loginWithServiceAccount({
      directory: dir,
      env: { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
    });
    expect(info).toMatchObject({ server: "https://10.0.0.1:443", token: "sa-token" });
    expect(await kopf.loginWithServiceAccount({ directory: join(dir, "absent") })).toBeNull();
  });

  it("serve as an on.login handler's result", async () => {
    const path = join(dir, "config");
    await writeFile(path, KUBECONFIG);
    const registry = CoreRegistry.make();
    registry.on.login(
      { id: "login_fn" },
      async () =>
        (await kopf.loginWithServiceAccount({ directory: join(dir, "absent") })) ??
        (await kopf.loginWithKubeconfig({ env: { KUBECONFIG: path } })),
    );
    const credentials = await Effect.runPromise(Operator.login(registry));
    expect((credentials as Record<string, unknown>).login_fn).toMatchObject({
      server: "https://k8s.example:6443",
      token: "secret-token",
    });
  });
});

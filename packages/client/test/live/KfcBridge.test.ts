// Covers the KFC bridge against a local HTTPS server that records the bearer tokens it gets:
// kubernetes-fluent-client's K8s() carries the operator's current credentials, the process's
// environment is never changed (during or after), and the operator's own kubeconfig login keeps
// reading the user's kubeconfig from $KUBECONFIG after the bridge starts — exec-plugin credentials
// are refreshed (a new token with an expiry at the second login) and an explicit context holds.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { K8s, kind } from "kubernetes-fluent-client";
import * as KfcBridge from "../../src/live/KfcBridge.ts";
import * as KubeClient from "../../src/live/KubeClient.ts";
import { CredentialsVault } from "../../src/Vault.ts";
import { CA_A, SERVER_CERT, SERVER_KEY } from "../fixtures/tls.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-kfc-bridge-"));
let server: Server;
let url = "";
const tokens: Array<string> = [];

beforeAll(async () => {
  server = createServer({ cert: SERVER_CERT, key: SERVER_KEY }, (request, response) => {
    tokens.push(String(request.headers.authorization ?? ""));
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** An exec plugin handing out token-1, token-2, ... (one per run; no expiry, so it runs at each login). */
const countingPlugin = (name: string) => {
  const counter = join(dir, `${name}.count`);
  writeFileSync(counter, "0");
  const path = join(dir, `${name}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh\nn=$(( $(cat ${counter}) + 1 ))\necho $n > ${counter}\n` +
      `echo '{"kind":"ExecCredential","status":{"token":"'$PREFIX'-'$n'"}}'\n`,
  );
  chmodSync(path, 0o755);
  return path;
};

/** A user's kubeconfig with two contexts, each user an exec plugin with its own token prefix. */
const userKubeconfig = (name: string) => {
  const plugin = countingPlugin(name);
  const exec = (prefix: string) =>
    `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n` +
    `      env:\n      - name: PREFIX\n        value: ${prefix}\n`;
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${url}\n` +
      `    certificate-authority-data: ${Buffer.from(CA_A).toString("base64")}\n` +
      `users:\n- name: ua\n  user:\n${exec("a")}- name: ub\n  user:\n${exec("b")}` +
      "contexts:\n- name: a\n  context: {cluster: c, user: ua}\n- name: b\n  context: {cluster: c, user: ub}\n" +
      "current-context: a\n",
  );
  return path;
};

/** Run `body` with the operator's client (logging in from $KUBECONFIG) and the bridge. */
const withBridge = <A, E>(
  name: string,
  context: string | undefined,
  body: Effect.Effect<A, E, CredentialsVault | KfcBridge.KfcBridge>,
) =>
  Effect.gen(function* () {
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = userKubeconfig(name);
    const env = { ...process.env };
    // Credentials from plugins expire after refreshInterval: the next call logs in again.
    const client = KubeClient.layer({
      kubeconfig: { refreshInterval: 1, ...(context ? { context } : {}) },
    });
    const live = KfcBridge.layer({ interval: "50 millis" }).pipe(Layer.provideMerge(client));
    const result = yield* body.pipe(
      Effect.tap(() => Effect.sync(() => assert.deepStrictEqual({ ...process.env }, env))),
      Effect.provide(Layer.fresh(live)),
      Effect.ensuring(
        Effect.sync(() => {
          assert.deepStrictEqual({ ...process.env }, env);
          if (previous === undefined) delete process.env.KUBECONFIG;
          else process.env.KUBECONFIG = previous;
        }),
      ),
    );
    return result;
  });

const kfcToken = Effect.promise(async () => {
  await K8s(kind.Namespace).Get("default");
  return tokens.at(-1);
});

/** Wait until the vault's credentials have expired, then make it log in again. */
const relogin = Effect.gen(function* () {
  yield* Effect.sleep("1100 millis");
  const vault = yield* CredentialsVault;
  return yield* vault.select;
});

describe("the KFC bridge", () => {
  it.live("K8s() gets the operator's credentials; exec credentials are refreshed after it starts", () =>
    withBridge(
      "refresh",
      undefined,
      Effect.gen(function* () {
        assert.strictEqual(yield* kfcToken, "Bearer a-1");
        const second = yield* relogin;
        assert.match(second.info.token ?? "", /^a-[2-9]$/);
        assert.isDefined(second.info.expiration);
        yield* (yield* KfcBridge.KfcBridge).refresh;
        assert.strictEqual(yield* kfcToken, `Bearer ${second.info.token}`);
      }),
    ),
  );

  it.live("an explicit context is honoured at every login after the bridge starts", () =>
    withBridge(
      "context",
      "b",
      Effect.gen(function* () {
        assert.strictEqual(yield* kfcToken, "Bearer b-1");
        const second = yield* relogin;
        assert.match(second.info.token ?? "", /^b-[2-9]$/);
      }),
    ),
  );

  it.live(
    "no file is written unless asked, and client-node reads $KUBECONFIG again after the bridge closes",
    () =>
      Effect.gen(function* () {
        const text = yield* withBridge(
          "closed",
          undefined,
          Effect.gen(function* () {
            const bridge = yield* KfcBridge.KfcBridge;
            assert.isUndefined(bridge.path);
            return yield* bridge.kubeconfig;
          }),
        );
        assert.include(text ?? "", '"current-context": "kopf"');
        const { KubeConfig } = yield* Effect.promise(() => import("@kubernetes/client-node"));
        const path = userKubeconfig("after");
        process.env.KUBECONFIG = path;
        try {
          const config = new KubeConfig();
          config.loadFromDefault();
          assert.strictEqual(config.getCurrentContext(), "a");
        } finally {
          delete process.env.KUBECONFIG;
        }
      }),
  );
});

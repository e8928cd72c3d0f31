// Covers the `kopf emulator` command: flag parsing (defaults, every flag, repeated --crd, bad and
// unknown flags), reading multi-document CRD files (List expansion, YAML errors, missing files),
// and a start/stop cycle that loads the state file, applies the CRDs, writes the kubeconfig, serves,
// and saves the state on shutdown; a restart from the state file keeps the port, CA, serving
// certificate, token and client certificates, so a client of the first run reconnects unchanged.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Ref from "effect/Ref";
import * as Scope from "effect/Scope";
import { parse as parseYaml } from "yaml";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import * as EmulatorCommand from "../../src/cli/EmulatorCommand.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import type { EmulatorServer } from "../../src/server/EmulatorServer.ts";
import { call } from "../server/support.ts";

const dir = () => mkdtempSync(join(tmpdir(), "kopf-emu-cli-"));

describe("EmulatorCommand.parse", () => {
  it.effect("applies the defaults", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* EmulatorCommand.parse([]), {
        port: 0,
        host: "127.0.0.1",
        kubeconfig: undefined,
        crd: [],
        state: undefined,
        token: undefined,
        insecure: false,
      });
    }),
  );

  it.effect("reads every flag, with --crd repeatable", () =>
    Effect.gen(function* () {
      const options = yield* EmulatorCommand.parse([
        "--port",
        "6443",
        "--host",
        "0.0.0.0",
        "--kubeconfig",
        "/tmp/kc",
        "--crd",
        "a.yaml",
        "--crd",
        "b.yaml",
        "--state",
        "/tmp/state.json",
        "--token",
        "t",
        "--insecure",
      ]);
      assert.deepStrictEqual(options, {
        port: 6443,
        host: "0.0.0.0",
        kubeconfig: "/tmp/kc",
        crd: ["a.yaml", "b.yaml"],
        state: "/tmp/state.json",
        token: "t",
        insecure: true,
      });
    }),
  );

  it.effect.each([
    [["--port", "70000"], "--port must be an integer in 0..65535"],
    [["--port", "abc"], "--port must be an integer"],
    [["--bogus"], "Unknown argument: bogus"],
  ] as const)("rejects %j", ([argv, message]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(EmulatorCommand.parse(argv));
      assert.strictEqual(error.reason, "Usage");
      assert.include(error.message, message);
    }),
  );
});

describe("EmulatorCommand.readObjects", () => {
  it.effect("reads multi-document YAML and expands Lists", () =>
    Effect.gen(function* () {
      const path = join(dir(), "crds.yaml");
      writeFileSync(
        path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\nkind: List\napiVersion: v1\nitems:\n- {kind: ConfigMap, metadata: {name: b}}\n- {kind: ConfigMap, metadata: {name: c}}\n",
      );
      const objects = (yield* EmulatorCommand.readObjects(path)) as ReadonlyArray<{
        metadata: { name: string };
      }>;
      assert.deepStrictEqual(
        objects.map((o) => o.metadata.name),
        ["a", "b", "c"],
      );
    }),
  );

  it.effect.each([
    ["key: [unclosed\n", "document 1 is not valid YAML"],
    ["- just\n- a list\n", "document 1 is not an object"],
  ] as const)("rejects %j", ([text, message]) =>
    Effect.gen(function* () {
      const path = join(dir(), "bad.yaml");
      writeFileSync(path, text);
      const error = yield* Effect.flip(EmulatorCommand.readObjects(path));
      assert.strictEqual(error.reason, "CrdFile");
      assert.include(error.message, message);
    }),
  );

  it.effect("names a missing file", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(EmulatorCommand.readObjects("/nonexistent/crd.yaml"));
      assert.include(error.message, "cannot read /nonexistent/crd.yaml");
    }),
  );
});

describe("EmulatorCommand.start", () => {
  it.live(
    "loads the state, applies the CRDs, serves with a kubeconfig, and saves the state on shutdown",
    () =>
      Effect.gen(function* () {
        const work = dir();
        const statePath = join(work, "state.json");
        const crdPath = join(work, "crd.yaml");
        const kubeconfigPath = join(work, "kubeconfig");
        writeFileSync(statePath, JSON.stringify({ resourceVersion: "7", objects: [{ kind: "Old" }] }));
        writeFileSync(crdPath, "kind: CustomResourceDefinition\nmetadata: {name: kopfexamples.kopf.dev}\n");
        const imported = yield* Ref.make<ReadonlyArray<unknown>>([]);
        const applied = yield* Ref.make<ReadonlyArray<unknown>>([]);
        const emulator = Layer.succeed(KubeEmulator)(
          KubeEmulator.of({
            handle: () =>
              Effect.succeed({
                _tag: "Complete",
                status: 200,
                headers: {},
                body: new TextEncoder().encode("{}"),
              }),
            dropWatches: Effect.void,
            setRootCa: () => Effect.void,
            compactHistory: Effect.void,
            exportState: Effect.succeed({ resourceVersion: "9", objects: [{ kind: "New" }] }),
            reader: { get: () => undefined, list: () => [], namespaceLabels: () => undefined },
            importState: (state) => Ref.update(imported, (all) => [...all, state]),
            apply: (objects) => Ref.update(applied, (all) => [...all, ...objects]),
          }),
        );
        const scope = yield* Scope.make();
        const options = yield* EmulatorCommand.parse([
          "--crd",
          crdPath,
          "--state",
          statePath,
          "--kubeconfig",
          kubeconfigPath,
          "--token",
          "tok",
        ]);
        const server = yield* EmulatorCommand.start(options).pipe(
          Scope.provide(scope),
          Effect.provide(Layer.merge(emulator, FaultInjector.layer)),
        );
        assert.deepStrictEqual(yield* Ref.get(imported), [
          { resourceVersion: "7", objects: [{ kind: "Old" }] },
        ]);
        assert.deepStrictEqual(yield* Ref.get(applied), [
          { kind: "CustomResourceDefinition", metadata: { name: "kopfexamples.kopf.dev" } },
        ]);
        const config = parseYaml(readFileSync(kubeconfigPath, "utf8"));
        assert.strictEqual(config.clusters[0].cluster.server, server.url);
        assert.deepStrictEqual(config.users[0].user, { token: "tok" });
        assert.strictEqual(
          (yield* call(server, "/version", { headers: { authorization: "Bearer tok" } })).status,
          200,
        );
        assert.strictEqual((yield* call(server, "/version")).status, 401);
        yield* Scope.close(scope, Exit.void);
        const saved = JSON.parse(readFileSync(statePath, "utf8"));
        assert.deepStrictEqual(saved, {
          resourceVersion: "9",
          objects: [{ kind: "New" }],
          server: { port: server.port, token: "tok", tls: server.tlsMaterial },
        });
        assert.strictEqual(statSync(statePath).mode & 0o777, 0o600);
        assert.include((yield* Effect.flip(call(server, "/version"))).message, "ECONNREFUSED");
      }),
  );
});

describe("EmulatorCommand.start after a restart", () => {
  /** One run of the command on a fresh emulator (as a new process would have), until `scope` closes. */
  const run = (argv: ReadonlyArray<string>, scope: Scope.Scope) =>
    EmulatorCommand.parse(argv).pipe(
      Effect.flatMap(EmulatorCommand.start),
      Scope.provide(scope),
      Effect.provide(Layer.merge(KubeEmulator.layer({ namespaceControllers: false }), FaultInjector.layer)),
    );

  /** A client configured only by a kubeconfig file: its server URL and CA, as kubectl would be. */
  const clientOf = (kubeconfig: string): EmulatorServer["Service"] => {
    const cluster = parseYaml(readFileSync(kubeconfig, "utf8")).clusters[0].cluster;
    return {
      url: cluster.server,
      tls: true,
      caPem: Buffer.from(cluster["certificate-authority-data"], "base64").toString("utf8"),
    } as EmulatorServer["Service"];
  };

  it.live("serves with the same address, CA, token and client certificates: the same client reconnects", () =>
    Effect.gen(function* () {
      const work = dir();
      const statePath = join(work, "state.json");
      const first = yield* Scope.make();
      const server = yield* run(
        ["--state", statePath, "--kubeconfig", join(work, "first"), "--token", "tok"],
        first,
      );
      const client = clientOf(join(work, "first"));
      const bearer = { authorization: "Bearer tok" };
      const created = yield* call(client, "/api/v1/namespaces/default/configmaps", {
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "kept" },
          data: { a: "1" },
        }),
      });
      assert.strictEqual(created.status, 201);
      const certificate = yield* server.issueClientCertificate({
        username: "alice",
        groups: ["system:masters"],
      });
      yield* Scope.close(first, Exit.void);
      assert.include(
        (yield* Effect.flip(call(client, "/version", { headers: bearer }))).message,
        "ECONNREFUSED",
      );

      // No --port and no --token: the restart takes both from the state file.
      const second = yield* Scope.make();
      const restarted = yield* run(["--state", statePath, "--kubeconfig", join(work, "second")], second);
      assert.strictEqual(restarted.url, server.url);
      assert.strictEqual(restarted.caPem, server.caPem);
      assert.deepStrictEqual(restarted.tlsMaterial, server.tlsMaterial);
      assert.strictEqual(
        readFileSync(join(work, "second"), "utf8"),
        readFileSync(join(work, "first"), "utf8"),
      );
      const read = yield* call(client, "/api/v1/namespaces/default/configmaps/kept", { headers: bearer });
      assert.strictEqual(read.status, 200);
      assert.deepStrictEqual(JSON.parse(read.body).data, { a: "1" });
      assert.strictEqual((yield* call(client, "/version", { cert: certificate })).status, 200);
      assert.strictEqual((yield* call(client, "/version")).status, 401);
      yield* Scope.close(second, Exit.void);
    }),
  );

  it.live("takes another port when the previous one is taken, and says so", () =>
    Effect.gen(function* () {
      const work = dir();
      const statePath = join(work, "state.json");
      const first = yield* Scope.make();
      const server = yield* run(["--state", statePath, "--kubeconfig", join(work, "first")], first);
      // The first run still holds its port while the second starts.
      const second = yield* Scope.make();
      const other = yield* run(["--state", statePath, "--kubeconfig", join(work, "second")], second);
      assert.notStrictEqual(other.port, server.port);
      assert.strictEqual(other.caPem, server.caPem);
      yield* Scope.close(second, Exit.void);
      yield* Scope.close(first, Exit.void);
    }),
  );
});

// Covers the `kopf emulator` command: flag parsing (defaults, every flag, repeated --crd, bad and
// unknown flags), reading multi-document CRD files (List expansion, YAML errors, missing files),
// and a start/stop cycle that loads the state file, applies the CRDs, writes the kubeconfig, serves,
// and saves the state on shutdown.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import { Effect, Exit, Layer, Ref, Scope } from "effect";
import { parse as parseYaml } from "yaml";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import * as EmulatorCommand from "../../src/cli/EmulatorCommand.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
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
        assert.deepStrictEqual(JSON.parse(readFileSync(statePath, "utf8")), {
          resourceVersion: "9",
          objects: [{ kind: "New" }],
        });
        assert.include((yield* Effect.flip(call(server, "/version"))).message, "ECONNREFUSED");
      }),
  );
});

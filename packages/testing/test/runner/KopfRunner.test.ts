/**
 * KopfRunner by registry against the in-process emulator: it starts once ready, handles a created
 * object (status written by the create handler), exposes the log output, stops gracefully with
 * exit code 0 running cleanup handlers, re-raises a startup failure (or exposes it without
 * reraise), disposes with `await using`, and has an Effect-scoped form. Helpers: apply from YAML
 * and objects, get, delete, waitFor with a timeout naming the object.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { type Index, PermanentError, Registry } from "@kopf/registry";
import { AmbientHandlers } from "@kopf/runtime";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Clusters, KopfRunner } from "../../src/index.ts";

const examples = join(dirname(fileURLToPath(import.meta.url)), "../../../../examples");

const registryWithCreate = () => {
  const registry = Registry.make();
  registry.on.create("kopfexamples", function create_fn({ spec, logger }) {
    logger.info(`Creating with ${JSON.stringify(spec)}`);
    return { message: "hello world" };
  });
  return registry;
};

describe("KopfRunner", () => {
  it("runs an operator by registry: handles objects, logs, stops with exit code 0", async () => {
    const registry = registryWithCreate();
    const cleaned: Array<string> = [];
    registry.on.cleanup(function cleanup_fn() {
      cleaned.push("cleanup");
    });
    const runner = await KopfRunner.start({ registry, namespaces: ["default"], cwd: examples });
    await runner.apply("crd.yaml");
    await runner.apply("obj.yaml");
    const body = await runner.waitFor(
      KopfRunner.kopfExamples,
      "kopf-example-1",
      "default",
      (b) => b?.status?.create_fn !== undefined,
    );
    assert.deepStrictEqual(body?.status?.create_fn, { message: "hello world" });
    await runner.waitForOutput("Handler 'create_fn' succeeded.");
    await runner.stop();
    assert.strictEqual(runner.exitCode, 0);
    assert.isUndefined(runner.exception);
    assert.deepStrictEqual(cleaned, ["cleanup"]);
    assert.include(
      runner.output,
      '[default/kopf-example-1] Creating with {"duration":"1m","field":"value","items":["item1","item2"]}',
    );
  });

  it("re-raises a startup failure from stop(), or exposes it without reraise", async () => {
    const failing = () => {
      const registry = Registry.make();
      registry.on.startup(function broken() {
        throw new PermanentError("cannot start");
      });
      return registry;
    };
    const reraising = await KopfRunner.start({ registry: failing() });
    assert.strictEqual(reraising.exitCode, 1);
    let thrown: unknown;
    await reraising.stop().catch((error: unknown) => {
      thrown = error;
    });
    assert.include(String((thrown as Error).message), "startup");
    const quiet = await KopfRunner.start({ registry: failing(), reraise: false });
    await quiet.stop();
    assert.strictEqual(quiet.exitCode, 1);
    assert.isDefined(quiet.exception);
  });

  it("stops on dispose (await using)", async () => {
    let seen: KopfRunner.KopfRunner | undefined;
    {
      await using runner = await KopfRunner.start({
        registry: registryWithCreate(),
        namespaces: ["default"],
      });
      seen = runner;
      assert.isUndefined(runner.exitCode);
    }
    assert.strictEqual(seen.exitCode, 0);
  });

  it("has an Effect-scoped form", async () => {
    const runner = await Effect.runPromise(
      Effect.scoped(KopfRunner.scoped({ registry: registryWithCreate(), namespaces: ["default"] })),
    );
    assert.strictEqual(runner.exitCode, 0);
  });

  it("waitFor names the object and its state on timeout; get/delete of absent objects", async () => {
    await using runner = await KopfRunner.start({
      registry: registryWithCreate(),
      namespaces: ["default"],
      cwd: examples,
    });
    await runner.apply("crd.yaml");
    assert.isUndefined(await runner.get(KopfRunner.kopfExamples, "nope", "default"));
    await runner.delete(KopfRunner.kopfExamples, "nope", "default");
    const error = await runner
      .waitFor(KopfRunner.kopfExamples, "nope", "default", (b) => b !== undefined, { timeout: 100 })
      .catch((e: unknown) => e);
    assert.instanceOf(error, KopfRunner.KopfRunnerError);
    assert.include(
      (error as Error).message,
      "kopfexamples.v1.kopf.dev default/nope did not reach the condition",
    );
  });

  it("by registry, starts the full operator: daemons, indices, the ambient binding", async () => {
    const registry = Registry.make();
    const daemons: Array<string> = [];
    const subs: Array<string> = [];
    registry.on.index("kopfexamples", { id: "names" }, ({ name }) => ({ [String(name)]: true }));
    registry.on.daemon("kopfexamples", { id: "watcher" }, async ({ name, stopped }) => {
      daemons.push(String(name));
      await stopped.wait();
    });
    registry.on.create("kopfexamples", { id: "create_fn" }, (context) => {
      const binding = AmbientHandlers.current();
      subs.push(String(binding?.body.metadata?.name));
      return { indexed: [...(context as unknown as { names: Index }).names.keys()] };
    });
    await using runner = await KopfRunner.start({ registry, namespaces: ["default"], cwd: examples });
    await runner.apply("crd.yaml");
    await runner.apply("obj.yaml");
    const body = await runner.waitFor(
      KopfRunner.kopfExamples,
      "kopf-example-1",
      "default",
      (b) => b?.status?.create_fn !== undefined,
    );
    assert.deepStrictEqual(body?.status?.create_fn, { indexed: ["kopf-example-1"] });
    await runner.waitForOutput("Daemon 'watcher' is invoked.");
    assert.deepStrictEqual(daemons, ["kopf-example-1"]);
    assert.deepStrictEqual(subs, ["kopf-example-1"]);
  });

  it("by registry, serves admission: webhook handlers without a server fail as in Kopf", async () => {
    const registry = Registry.make();
    registry.on.validate("kopfexamples", { id: "check" }, () => undefined);
    const runner = await KopfRunner.start({ registry, namespaces: ["default"], reraise: false });
    await runner.stop();
    assert.strictEqual(runner.exitCode, 1);
    assert.include(
      String((runner.exception as Error).message),
      "Admission handlers exist, but no admission server",
    );
  });

  it("request() sends once and answers what the client got; it needs a client's transport", async () => {
    await using runner = await KopfRunner.start({ registry: Registry.make(), standalone: true });
    const path = "/api/v1/namespaces/default/configmaps";
    const created = await runner.request("POST", path, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm1" },
      data: { a: "1" },
    });
    assert.strictEqual(created.status, 201);
    assert.deepStrictEqual(created.body.data, { a: "1" });
    const again = await runner.request("POST", path, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm1" },
    });
    assert.strictEqual(again.status, 409);
    assert.strictEqual(again.body.reason, "AlreadyExists");
    const absent = await runner.request("GET", `${path}/nope`);
    assert.strictEqual(absent.status, 404);

    const bare = await KopfRunner.start({
      registry: Registry.make(),
      standalone: true,
      cluster: Layer.effect(
        KubeApi,
        Effect.map(KubeApi, (api) => api),
      ).pipe(Layer.provide(Clusters.inProcess())),
    });
    const refused = await bare.request("GET", path).catch((error: unknown) => error);
    assert.strictEqual((refused as { reason?: string }).reason, "NotFound");
    assert.include(String((refused as Error).message), "needs the cluster's transport and credentials vault");
    await bare.stop();
  });
});

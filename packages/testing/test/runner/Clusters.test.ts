/**
 * Clusters.selected follows KOPF_TEST_CLUSTER: unset and `emulator` give the emulator (the given
 * kind of it), `kubeconfig:PATH` logs in with that kubeconfig (here: an HTTPS emulator's, reached
 * over the network like any cluster), `real` and nonsense fail with a message naming the variable;
 * isEmulator agrees; a KopfRunner without a cluster runs on the selected one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeApi } from "@kopf/client";
import { EmulatorServer, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clusters, KopfRunner } from "../../src/index.ts";

const { namespaces } = KopfRunner;

/** Builds a cluster layer and lists namespace names through its KubeApi (or answers the failure). */
const namespacesOf = (cluster: Clusters.Cluster) =>
  Effect.runPromiseExit(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(cluster);
        const api = Context.get(context, KubeApi);
        const list = yield* api.list(namespaces);
        return list.items.map((item) => item.metadata?.name).sort();
      }),
    ),
  );

let server: { kubeconfig: string; close: () => Promise<void>; mark: () => Promise<void> };

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "kopf-clusters-"));
  const kubeconfig = join(dir, "kubeconfig");
  const built = await Clusters.build(
    EmulatorServer.layer({ tls: true }).pipe(
      Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
    ) as never,
  );
  const context = built.context as unknown as Context.Context<EmulatorServer | KubeEmulator>;
  await Effect.runPromise(Context.get(context, EmulatorServer).writeKubeconfig(kubeconfig));
  server = {
    kubeconfig,
    // A namespace only this server has, to tell it from any other emulator.
    mark: () =>
      Effect.runPromise(
        Context.get(context, KubeEmulator).apply([
          { apiVersion: "v1", kind: "Namespace", metadata: { name: "served-over-https" } },
        ]),
      ),
    close: async () => {
      await built.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await server.mark();
});
afterAll(() => server.close());

describe("Clusters.selected", () => {
  it.each([[undefined], [""], ["emulator"]])("%j selects a fresh emulator", async (value) => {
    const exit = await namespacesOf(Clusters.selected({ env: { KOPF_TEST_CLUSTER: value } }));
    expect(Exit.isSuccess(exit) && exit.value).toEqual([
      "default",
      "kube-node-lease",
      "kube-public",
      "kube-system",
    ]);
  });

  it("uses the given kind of emulator", async () => {
    let built = 0;
    const exit = await namespacesOf(
      Clusters.selected({
        env: {},
        emulator: () => {
          built++;
          return Clusters.inProcess();
        },
      }),
    );
    expect(Exit.isSuccess(exit)).toBe(true);
    expect(built).toBe(1);
  });

  it("kubeconfig:PATH reaches the cluster of that kubeconfig", async () => {
    const exit = await namespacesOf(
      Clusters.selected({ env: { KOPF_TEST_CLUSTER: `kubeconfig:${server.kubeconfig}` } }),
    );
    expect(Exit.isSuccess(exit) && exit.value).toContain("served-over-https");
  });

  it.each([
    ["real", /KOPF_TEST_CLUSTER=real is resolved by the real-cluster tier/],
    ["kind", /KOPF_TEST_CLUSTER="kind" is not a cluster/],
    ["kubeconfig:", /needs a path/],
  ])("%j fails with a clear message", async (value, message) => {
    const exit = await namespacesOf(Clusters.selected({ env: { KOPF_TEST_CLUSTER: value } }));
    expect(Exit.isFailure(exit)).toBe(true);
    if (Exit.isFailure(exit)) expect(String((Cause.squash(exit.cause) as Error).message)).toMatch(message);
  });

  it("a kubeconfig that does not exist fails at login, naming the file", async () => {
    const exit = await namespacesOf(Clusters.kubeconfig("/nonexistent/kubeconfig"));
    expect(Exit.isFailure(exit)).toBe(true);
    if (Exit.isFailure(exit)) expect(String(Cause.squash(exit.cause))).toContain("/nonexistent/kubeconfig");
  });
});

describe("Clusters.isEmulator", () => {
  it.each([
    [{}, true],
    [{ KOPF_TEST_CLUSTER: "emulator" }, true],
    [{ KOPF_TEST_CLUSTER: "kubeconfig:/k" }, false],
    [{ KOPF_TEST_CLUSTER: "real" }, false],
    [{ KOPF_TEST_CLUSTER: "nonsense" }, false],
  ])("%j → %s", (env, expected) => {
    expect(Clusters.isEmulator(env)).toBe(expected);
  });
});

describe("KopfRunner's default cluster", () => {
  it("is the one KOPF_TEST_CLUSTER names", async () => {
    const saved = process.env.KOPF_TEST_CLUSTER;
    process.env.KOPF_TEST_CLUSTER = `kubeconfig:${server.kubeconfig}`;
    try {
      await using runner = await KopfRunner.start({ registry: Registry.make(), standalone: true });
      const names = (await runner.list(namespaces)).map((n) => n.metadata?.name);
      expect(names).toContain("served-over-https");
    } finally {
      if (saved === undefined) delete process.env.KOPF_TEST_CLUSTER;
      else process.env.KOPF_TEST_CLUSTER = saved;
    }
  });
});

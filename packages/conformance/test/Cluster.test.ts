// Covers the cluster parameter: KOPF_TEST_CLUSTER resolution, an emulator acquired and released
// (reachable with its kubeconfig while open, the kubeconfig removed after), a kubeconfig target
// passed through untouched, and a bad target rejected with a message naming the variable.
import { existsSync } from "node:fs";
import { ClusterTarget as Target } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";
import * as Cluster from "../src/Cluster.ts";
import * as Connection from "../src/Connection.ts";

const version = (kubeconfig: string) =>
  Effect.runPromiseExit(
    Effect.gen(function* () {
      const connection = yield* Connection.fromKubeconfig(kubeconfig);
      const response = yield* connection.request("GET", "/version");
      connection.close();
      return response;
    }),
  );

describe("Cluster", () => {
  it("resolves KOPF_TEST_CLUSTER, defaulting to the emulator", async () => {
    expect(await Effect.runPromise(Cluster.fromEnv({}))).toEqual(Target.emulator);
    expect(await Effect.runPromise(Cluster.fromEnv({ KOPF_TEST_CLUSTER: "real" }))).toEqual(Target.real);
    const bad = await Effect.runPromiseExit(Cluster.fromEnv({ KOPF_TEST_CLUSTER: "minikube" }));
    expect(Exit.isFailure(bad)).toBe(true);
    await expect(Cluster.open(Target.kubeconfig("/nowhere")).then((c) => c.kubeconfig)).resolves.toBe(
      "/nowhere",
    );
  });

  it("rejects an unknown target with a message naming the variable", async () => {
    const previous = process.env.KOPF_TEST_CLUSTER;
    process.env.KOPF_TEST_CLUSTER = "docker-desktop";
    try {
      await expect(Cluster.open()).rejects.toMatchObject({ reason: "Target", message: /KOPF_TEST_CLUSTER/ });
    } finally {
      if (previous === undefined) delete process.env.KOPF_TEST_CLUSTER;
      else process.env.KOPF_TEST_CLUSTER = previous;
    }
  });

  it("serves an emulator while open and removes it and its kubeconfig on close", async () => {
    const cluster = await Cluster.open(Target.emulator);
    const open = await version(cluster.kubeconfig);
    expect(Exit.isSuccess(open) && open.value.status).toBe(200);
    await cluster.close();
    expect(existsSync(cluster.kubeconfig)).toBe(false);
  });
});

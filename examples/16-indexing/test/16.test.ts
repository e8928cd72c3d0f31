/**
 * Example 16 through `kopf run` on the selected cluster (the emulator by default): the pods are indexed (also those existing
 * before the start), the health endpoint's probes answer from the index, and the timer writes
 * the running pods into the KopfExample's status and logs the pods by label.
 */
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KubeApi } from "@kopf/client";
import { Clusters, KopfRunner } from "@kopf/testing";
import { Effect } from "effect";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });

const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", labels },
  spec: { containers: [{ name: "main", image: "busybox" }] },
});

it("indexes pods for probes and timers", async () => {
  const port = await freePort();
  await using cluster = await Clusters.build(Clusters.selected());
  await using runner = await KopfRunner.start({
    cluster,
    args: [
      "run",
      "-A",
      "--standalone",
      "--liveness",
      `http://127.0.0.1:${port}/healthz`,
      join(here, "../src/handlers.ts"),
    ],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply([pod("web-1", { app: "web" }), pod("web-2", { app: "web" })]);
  // The kubelet's part: web-1 is running (written through the status subresource).
  await Effect.runPromise(
    Effect.flatMap(KubeApi, (api) =>
      api.patch(
        KopfRunner.pods,
        { name: "web-1", namespace: "default", subresource: "status" },
        { type: "merge", body: { status: { phase: "Running" } } },
      ),
    ).pipe(Effect.provide(cluster.context)),
  );
  await runner.apply("obj.yaml");

  let health: Record<string, unknown> = {};
  for (let i = 0; i < 100 && health.pod_count !== 2; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
      signal: AbortSignal.timeout(2_000),
    }).catch(() => undefined);
    if (response?.status === 200) health = (await response.json()) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(health.pod_count).toBe(2);
  expect([...((health.pod_names as Array<string>) ?? [])].sort()).toEqual(["web-1", "web-2"]);

  const body = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => (b?.status?.["running-pods"] ?? []).length > 0,
    { timeout: 15_000 },
  );
  expect(body?.status?.["running-pods"]).toEqual(["default::web-1"]);
  await runner.waitForOutput('"app=web":["web-1","web-2"]');
  await runner.stop();
  expect(runner.exitCode).toBe(0);
}, 60_000);

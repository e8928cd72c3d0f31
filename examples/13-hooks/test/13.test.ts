/**
 * Example 13 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): the retried startup handler succeeds on
 * its 4th attempt before the operator is ready (the endpoint answering only after startup is
 * tested in @kopf/engines' Liveness tests); each pod
 * gets a background task; the probes report them; the cleanup handler runs on exit. The login
 * handler finds the kubeconfig outside a cluster.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
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

const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: { containers: [{ name: "main", image: "busybox" }] },
});

const health = async (url: string) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
  return response?.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
};

it("runs the hooks around per-pod tasks", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/healthz`;
  await using runner = await KopfRunner.start({
    args: ["run", "-A", "--standalone", "--liveness", url, join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  // The runner is ready once the startup handlers are done: 3 retries, 1 s apart.
  expect(runner.output).toContain("Going to succeed in 1s");
  expect(runner.output).toContain("Starting retried...");

  await runner.apply([pod("pod-1"), pod("pod-2")]);
  let report: Record<string, unknown> | undefined;
  for (let i = 0; i < 150 && report?.tasks_count !== 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    report = await health(url);
  }
  // Probe results are cached for 10 s: the first answer may predate the second pod.
  expect(report?.tasks_count).toBe(2);
  expect(report?.monitored_objects).toEqual({ default: ["pod-1", "pod-2"] });
  await runner.waitForOutput("Served by the background task.", { timeout: 15_000 });

  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain("Initialising the task registry...");
  expect(runner.output).toContain("Cleaning up...");
  expect(runner.output).toContain("All pod-tasks are requested to stop...");
}, 60_000);

it("logs in with the kubeconfig outside a cluster", async () => {
  const dir = await mkdtemp(join(tmpdir(), "example-13-"));
  const saved = process.env.KUBECONFIG;
  try {
    const path = join(dir, "config");
    await writeFile(
      path,
      [
        "apiVersion: v1",
        "kind: Config",
        'clusters: [{ name: c1, cluster: { server: "https://k8s.example:6443" } }]',
        "users: [{ name: u1, user: { token: t0ken } }]",
        "contexts: [{ name: ctx1, context: { cluster: c1, user: u1 } }]",
        "current-context: ctx1",
      ].join("\n"),
    );
    process.env.KUBECONFIG = path;
    const { login_fn } = await import("../src/handlers.ts");
    expect(await login_fn()).toMatchObject({ server: "https://k8s.example:6443", token: "t0ken" });
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    await rm(dir, { recursive: true, force: true });
  }
});

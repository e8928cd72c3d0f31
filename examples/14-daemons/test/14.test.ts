/**
 * Example 14 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): both daemons start after 3 failed
 * attempts each (the status shows the failures), ping, and on deletion the cooperative one exits
 * on request while the other is cancelled after its backoff — only then is the finalizer
 * released and the object gone.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

it("runs the daemons after their retries and stops them on deletion", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", "--verbose", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  // The daemons are spawned in the cycle that adds the finalizer (as in Kopf), so their first
  // status write and the finalizer land in either order: wait for both.
  const failing = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) =>
      String(b?.status?.message ?? "").startsWith("Failed") &&
      (b?.metadata?.finalizers ?? []).includes(FINALIZER),
  );
  expect(failing?.metadata?.finalizers).toEqual([FINALIZER]);
  await runner.waitForOutput("=> Ping from a sync daemon", { timeout: 15_000 });
  await runner.waitForOutput("=> Ping from an async daemon", { timeout: 15_000 });
  const body = await runner.get(KopfRunner.kopfExamples, "kopf-example-1", "default");
  expect(body?.status?.message).toBe("Failed 3 times.");

  await runner.delete(KopfRunner.kopfExamples, "kopf-example-1", "default");
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) => b === undefined, {
    timeout: 15_000,
  });
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain(
    "Daemon 'background_sync' has exited on request and will not be retried or restarted.",
  );
  expect(runner.output).toContain("Daemon 'background_async' is signalled to exit gracefully.");
  expect(runner.output).toContain("Daemon 'background_async' is signalled to exit by force.");
  // Cancelled within its backoff + timeout, not abandoned.
  expect(runner.output).not.toContain("Leaving it orphaned");
});

/**
 * Example 15 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): the timers stay quiet while the object is
 * younger than their `idle`, then ping every `interval`; a change of the object restarts the
 * idle countdown; deleting the object stops them and releases the finalizer.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const count = (output: string, text: string) => output.split(text).length - 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("pings after the idle time, every interval, and stops on deletion", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", "--verbose", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const started = performance.now();
  await runner.waitForOutput("Ping from a sync timer", { timeout: 15_000 });
  expect(performance.now() - started).toBeGreaterThan(4_000); // idle: 5 s
  expect(runner.output).not.toContain("Ping from an async timer"); // idle: 10 s
  await sleep(4_500);
  expect(count(runner.output, "Ping from a sync timer")).toBeGreaterThanOrEqual(2); // interval: 2 s

  // A change restarts the idle countdown: no ping for the next seconds.
  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "changed" } });
  await sleep(500);
  const before = count(runner.output, "Ping from a sync timer");
  await sleep(3_000);
  expect(count(runner.output, "Ping from a sync timer")).toBe(before);
  await runner.waitForOutput('Ping from a sync timer: field="changed"', { timeout: 10_000 });
  await runner.waitForOutput("Ping from an async timer", { timeout: 15_000 });

  await runner.delete(KopfRunner.kopfExamples, "kopf-example-1", "default");
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) => b === undefined, {
    timeout: 10_000,
  });
  await runner.stop();
  expect(runner.exitCode).toBe(0);
}, 60_000);

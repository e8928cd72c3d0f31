/**
 * Example 03 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): while handlers are retried, their progress
 * is kept in Kopf's per-handler annotations (retry counts included); once every handler has
 * succeeded or failed for good, the progress annotations are gone, the last-handled
 * configuration is stored, and each handler ended as Kopf's example expects (one success, three
 * permanent failures).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const PROGRESS = "kopf.zalando.org/eventual_success_with_a_few_messages";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

const count = (text: string, needle: string) => text.split(needle).length - 1;

it("retries, fails and succeeds as the handlers say; progress in annotations meanwhile", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const retried = await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) =>
    (b?.metadata?.annotations?.[PROGRESS] ?? "").includes('"retries":2'),
  );
  expect(JSON.parse(retried?.metadata?.annotations?.[PROGRESS] ?? "{}")).toMatchObject({
    retries: 2,
    success: false,
    failure: false,
    message: "Expected recoverable error.",
  });
  const done = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b?.metadata?.annotations?.[LAST_HANDLED] !== undefined,
    { timeout: 20_000 },
  );
  const kopfKeys = Object.keys(done?.metadata?.annotations ?? {}).filter((k) =>
    k.startsWith("kopf.zalando.org/"),
  );
  expect(kopfKeys).toEqual([LAST_HANDLED]);
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  const output = runner.output;
  expect(count(output, "Handler 'eventual_success_with_a_few_messages' succeeded.")).toBe(1);
  expect(
    count(output, "Handler 'instant_failure_with_only_a_message' failed permanently: Fail once and for all."),
  ).toBe(1);
  expect(
    count(output, "Handler 'instant_failure_with_traceback' failed with an exception and will stop now:"),
  ).toBe(1);
  expect(
    count(
      output,
      "Handler 'eventual_failure_with_tracebacks' failed with an exception and will try again in 1 seconds:",
    ),
  ).toBe(2);
  expect(
    count(
      output,
      "Handler 'eventual_failure_with_tracebacks' failed with an exception and will stop now (it would exceed 3 retries on the next attempt)",
    ),
  ).toBe(1);
  expect(
    count(
      output,
      "Handler 'eventual_success_with_a_few_messages' failed temporarily: Expected recoverable error.",
    ),
  ).toBe(3);
  expect(output).toContain("Creation is processed: 1 succeeded; 3 failed.");
});

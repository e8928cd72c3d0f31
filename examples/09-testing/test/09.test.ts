/**
 * Example 09: the operator test of Kopf's example, with KopfRunner on the selected cluster (the emulator by default) — create
 * the object, let it be handled, delete it, and check the exit code, the exception, the log lines
 * and what the operator left on the object meanwhile.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("handles the lifecycle of a resource", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "--all-namespaces", "--verbose", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
    timeout: 60_000,
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const handled = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] !== undefined,
  );
  expect(handled?.metadata?.finalizers).toBeUndefined(); // no delete handlers: no finalizer needed
  await runner.delete(KopfRunner.kopfExamples, "kopf-example-1", "default");
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) => b === undefined);
  await runner.stop();

  // Ensure that the operator did not die on start, or during the operation.
  expect(runner.exception).toBeUndefined();
  expect(runner.exitCode).toBe(0);

  // There are usually more than these messages, but we only check for the certain ones.
  expect(runner.output).toContain("[default/kopf-example-1] Creation is in progress:");
  expect(runner.output).toContain("[default/kopf-example-1] Something was logged here.");
});

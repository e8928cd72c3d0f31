/**
 * Example 07 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): one sub-handler per item runs, each
 * leaving its result in the status under its own id; the progress annotations are cleaned up
 * once the parent is done.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("runs a sub-handler per item, results under their own ids", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const body = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] !== undefined,
  );
  expect(body?.status).toEqual({
    "create_fn/item1": { handled: "item1" },
    "create_fn/item2": { handled: "item2" },
  });
  const kopfKeys = Object.keys(body?.metadata?.annotations ?? {}).filter((k) =>
    k.startsWith("kopf.zalando.org/"),
  );
  expect(kopfKeys).toEqual(["kopf.zalando.org/last-handled-configuration"]);
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain("[default/kopf-example-1] === Handling creation for item1. ===");
  expect(runner.output).toContain("[default/kopf-example-1] === Handling creation for item2. ===");
  expect(runner.output).toContain("[default/kopf-example-1] Handler 'create_fn' succeeded.");
});

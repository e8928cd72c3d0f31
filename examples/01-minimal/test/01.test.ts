/**
 * Example 01 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): the created object gets the handler's
 * result in `status.create_fn` and Kopf's last-handled-configuration annotation; the handler's
 * log line carries the object's prefix; the operator stops with exit code 0.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("stores the handler's result in the status", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", "--verbose", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const body = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    // Handled: the result, then the mark saying so (results are written first).
    (b) =>
      b?.status?.create_fn !== undefined &&
      b?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] !== undefined,
  );
  expect(body?.status?.create_fn).toEqual({ message: "hello world" });
  const annotations = body?.metadata?.annotations ?? {};
  expect(JSON.parse(annotations["kopf.zalando.org/last-handled-configuration"] ?? "{}")).toEqual({
    spec: { duration: "1m", field: "value", items: ["item1", "item2"] },
    metadata: { labels: { somelabel: "somevalue" }, annotations: { someannotation: "somevalue" } },
  });
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain(
    '[default/kopf-example-1] And here we are! Creating: {"duration":"1m","field":"value","items":["item1","item2"]}',
  );
  expect(runner.output).toContain("[default/kopf-example-1] Handler 'create_fn' succeeded.");
});

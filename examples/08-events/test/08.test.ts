/**
 * Example 08 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): the event handlers run for the object's
 * events (the failing one is ignored, the other logs each), and nothing is stored on the object.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("runs event handlers on every event and leaves the object untouched", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  await runner.waitForOutput('Event received: {"type":"ADDED","name":"kopf-example-1"}');
  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "changed" } });
  await runner.waitForOutput('Event received: {"type":"MODIFIED","name":"kopf-example-1"}');
  const body = await runner.get(KopfRunner.kopfExamples, "kopf-example-1", "default");
  expect(body?.metadata?.finalizers).toBeUndefined();
  expect(body?.status).toBeUndefined();
  expect(Object.keys(body?.metadata?.annotations ?? {})).toEqual(["someannotation"]);
  await runner.delete(KopfRunner.kopfExamples, "kopf-example-1", "default");
  await runner.waitForOutput('Event received: {"type":"DELETED","name":"kopf-example-1"}');
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain(
    "Handler 'event_fn_with_error' failed with an exception and will ignore it: Oops!",
  );
});

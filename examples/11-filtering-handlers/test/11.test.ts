/**
 * Example 11 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): exactly the handlers whose filters match
 * the example object run on creation (others never do), and the old/new update handler runs
 * only for the change it names; the filtered daemon runs while the field has its value, is
 * stopped when it changes and started again when it is back.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

const MATCHING = [
  "Label is matching.",
  "Label is present.",
  "Label is absent.",
  "Label callback matching.",
  "Annotation is matching.",
  "Annotation is present.",
  "Annotation is absent.",
  "Filter satisfied.",
  "Field value is satisfied.",
  "Field presence is satisfied.",
];
const MISMATCHING = [
  "Annotation callback mismatch.",
  "Filter not satisfied.",
  "Field value is not satisfied.",
  "Field presence is not satisfied.",
];

it("runs only the handlers whose filters match", async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  await runner.waitForOutput("Creation is processed: 10 succeeded; 0 failed.");
  await runner.waitForOutput("[default/kopf-example-1] Field daemon is executed.");
  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "other" } });
  await runner.waitForOutput("[default/kopf-example-1] Field daemon is stopped.");
  const executedBefore = runner.output.split("Field daemon is executed.").length;
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) =>
    (b?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] ?? "").includes(
      '"field":"other"',
    ),
  );
  expect(runner.output).not.toContain("Field change is satisfied.");
  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "value" } });
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) =>
    (b?.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] ?? "").includes(
      '"field":"value"',
    ),
  );
  // Back to "value": the daemon is started again.
  const deadline = performance.now() + 20_000;
  while (runner.output.split("Field daemon is executed.").length <= executedBefore) {
    expect(performance.now()).toBeLessThan(deadline);
    await new Promise((done) => setTimeout(done, 50));
  }
  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "changed" } });
  await runner.waitForOutput("[default/kopf-example-1] Field change is satisfied.");
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  for (const line of MATCHING) expect(runner.output).toContain(`[default/kopf-example-1] ${line}`);
  for (const line of MISMATCHING) expect(runner.output).not.toContain(line);
});

/**
 * Example 10 on the selected cluster (the emulator over HTTPS by default): a created pod is deleted by its background task
 * after the (shortened) timeout; a pod deleted before that has its task cancelled; the operator's
 * finalizer is on the pods it serves meanwhile.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { Clusters, KopfRunner } from "@kopf/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: { containers: [{ name: "main", image: "busybox" }] },
});

beforeAll(() => {
  process.env.EXAMPLE_10_KILL_AFTER = "1";
});
afterAll(() => {
  delete process.env.EXAMPLE_10_KILL_AFTER;
});

it("kills pods after a while unless they are deleted before", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cluster: Clusters.selected({ emulator: Clusters.https }),
  });
  await runner.apply(pod("victim"));
  const served = await runner.waitFor(KopfRunner.pods, "victim", "default", (b) =>
    (b?.metadata?.finalizers ?? []).includes("kopf.zalando.org/KopfFinalizerMarker"),
  );
  expect(served).toBeDefined();
  await runner.apply(pod("survivor"));
  await runner.waitForOutput("[default/survivor] === Pod killing happens in 1s.");
  await runner.delete(KopfRunner.pods, "survivor", "default");
  await runner.waitFor(KopfRunner.pods, "survivor", "default", (b) => b === undefined);
  await runner.waitFor(KopfRunner.pods, "victim", "default", (b) => b === undefined, { timeout: 15_000 });
  expect(runner.output).toContain("[default/victim] === Pod killing happens NOW!");
  expect(runner.output).toContain("[default/survivor] === Pod killing is cancelled!");
  expect(runner.output).not.toContain("[default/survivor] === Pod killing happens NOW!");
});

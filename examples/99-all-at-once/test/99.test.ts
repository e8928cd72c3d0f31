/**
 * Example 99 on the selected cluster (the emulator over HTTPS by default): startup activities (one retried) finish before
 * handling; the create handlers leave their results (the failing one after its retry), events
 * and a labelled child Pod owned by the object; the field handler sees a change of spec.lst; the
 * object is deleted through its delete handler; the cleanup activity runs on stop.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { Clusters, KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("does everything at once", { timeout: 60_000 }, async () => {
  const runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
    cluster: Clusters.selected({ emulator: Clusters.https }),
  });
  expect(runner.output).toContain("Starting retried...");
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const body = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b?.status?.create_2 !== undefined,
    { timeout: 20_000 },
  );
  expect(body?.status?.create_1).toEqual({ "job1-status": 100 });
  expect(body?.status?.create_2).toEqual({ "job2-status": 100 });
  expect(body?.metadata?.finalizers).toEqual(["kopf.zalando.org/KopfFinalizerMarker"]);

  const pods = await runner.list(KopfRunner.pods, "default");
  expect(pods).toHaveLength(1);
  expect(pods[0]?.metadata?.labels).toEqual({ somelabel: "somevalue", application: "kopf-example-10" });
  expect(pods[0]?.metadata?.ownerReferences?.[0]?.uid).toBe(body?.metadata?.uid);
  await runner.waitForOutput("This pod is special for us.");

  // Only this object's events: a real cluster posts its own too.
  const events = (await runner.list(KopfRunner.events, "default"))
    .filter((e) => (e as { involvedObject?: { uid?: string } }).involvedObject?.uid === body?.metadata?.uid)
    .map((e) => `${e.type}/${e.reason}`)
    .sort();
  expect(events).toEqual(["Normal/AnyReason", "Warning/SomeReason"]);

  await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { lst: [1, 2] } });
  await runner.waitForOutput("Handling the FIELD = undefined -> [1,2]");
  await runner.delete(KopfRunner.kopfExamples, "kopf-example-1", "default");
  await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) => b === undefined);
  await runner.stop();
  expect(runner.exitCode).toBe(0);
  expect(runner.output).toContain("Handler 'create_2' failed with an exception and will try again");
  expect(runner.output).toContain("Handler 'delete_' succeeded.");
  expect(runner.output).toContain("Cleaning up in 3s...");
});

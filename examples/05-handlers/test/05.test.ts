/**
 * Example 05 through KopfRunner against one cluster (KOPF_TEST_CLUSTER; the emulator by default): on creation the finalizer is added and
 * both create handlers plus the field handler run; an update runs the update and field handlers
 * and refreshes the last-handled configuration; a restarted operator resumes the existing object;
 * on deletion both delete handlers run and the finalizer goes, so the object disappears.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as kopf from "kopf";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";
const ex = KopfRunner.kopfExamples;

it("creates, updates, resumes and deletes with every handler", async () => {
  // The cluster and the handlers outlive the first operator: shared by both runs.
  const registry = kopf.Registry.make();
  await using cluster = await Clusters.build(Clusters.selected());
  const options = {
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
    registry,
  };
  const first = await KopfRunner.start({ ...options, cluster });
  await first.apply("crd.yaml");
  await first.apply("obj.yaml");
  const created = await first.waitFor(
    ex,
    "kopf-example-1",
    "default",
    (b) => b?.metadata?.annotations?.[LAST_HANDLED] !== undefined,
  );
  expect(created?.metadata?.finalizers).toEqual([FINALIZER]);
  await first.patch(ex, "kopf-example-1", "default", { spec: { field: "changed" } });
  const updated = await first.waitFor(ex, "kopf-example-1", "default", (b) =>
    (b?.metadata?.annotations?.[LAST_HANDLED] ?? "").includes('"field":"changed"'),
  );
  expect(updated?.metadata?.finalizers).toEqual([FINALIZER]);
  await first.waitForOutput("Updating is processed: 2 succeeded; 0 failed.");
  await first.stop();
  expect(first.output).toContain("[default/kopf-example-1] CREATED 1st");
  expect(first.output).toContain("[default/kopf-example-1] CREATED 2nd");
  expect(first.output).toContain("[default/kopf-example-1] FIELD CHANGED: undefined -> value");
  expect(first.output).toContain("[default/kopf-example-1] FIELD CHANGED: value -> changed");
  expect(first.output).toContain(
    '[default/kopf-example-1] UPDATED: [{"op":"change","field":["spec","field"],"old":"value","new":"changed"}]',
  );
  expect(first.output).not.toContain("RESUMED");

  const second = await KopfRunner.start({ ...options, cluster });
  await second.waitForOutput("[default/kopf-example-1] RESUMED 2nd");
  await second.delete(ex, "kopf-example-1", "default");
  await second.waitFor(ex, "kopf-example-1", "default", (b) => b === undefined);
  await second.stop();
  expect(second.exitCode).toBe(0);
  expect(second.output).toContain("[default/kopf-example-1] RESUMED 1st");
  expect(second.output).toContain("[default/kopf-example-1] DELETED 1st");
  expect(second.output).toContain("[default/kopf-example-1] DELETED 2nd");
  expect(second.output).not.toContain("CREATED");
});

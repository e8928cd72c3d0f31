/**
 * Example 02 on the selected cluster (the emulator over HTTPS by default): the create handler creates a child Pod through
 * kubernetes-fluent-client, adopted by the parent (owner reference, generated name, namespace,
 * labels), and the parent's status lists the child's uid.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { Clusters, KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("creates an adopted child pod and records its uid", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
    cluster: Clusters.selected({ emulator: Clusters.https }),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const parent = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b?.status?.create_fn !== undefined,
    { timeout: 20_000 },
  );
  const pods = await runner.list(KopfRunner.pods, "default");
  expect(pods).toHaveLength(1);
  const pod = pods[0]!;
  expect(parent?.status?.create_fn).toEqual({ children: [pod.metadata?.uid] });
  expect(pod.metadata?.name).toMatch(/^kopf-example-1-/);
  expect(pod.metadata?.labels).toEqual({ somelabel: "somevalue" });
  expect(pod.metadata?.ownerReferences).toEqual([
    {
      controller: true,
      blockOwnerDeletion: true,
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      name: "kopf-example-1",
      uid: parent?.metadata?.uid,
    },
  ]);
  expect((pod as { spec?: { containers?: Array<{ env?: unknown }> } }).spec?.containers?.[0]?.env).toEqual([
    { name: "FIELD", value: "value" },
  ]);
});

/**
 * Example 06 through `kopf run` on one cluster (the one KOPF_TEST_CLUSTER names: the emulator by
 * default, a real kube-apiserver in `npm run test:real`): with the peering CRDs (shipped in
 * @kopf/engines) and a `KopfPeering` object, a `--dev` operator (priority 666) makes an operator
 * with the default priority pause; the paused one handles nothing until the dev operator exits,
 * then resumes and handles new objects.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as kopf from "kopf";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const HANDLED = "Handler 'create_fn' succeeded.";
const example = (name: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "default" },
  spec: { field: "value" },
});

it("pauses the lower priority while the dev operator runs", async () => {
  await using cluster = await Clusters.build(Clusters.selected());
  const registry = kopf.Registry.make(); // shared: the handler file is loaded once per process
  const start = (extra: ReadonlyArray<string>) =>
    KopfRunner.start({
      args: ["run", "-n", "default", "--verbose", ...extra, join(here, "../src/handlers.ts")],
      cli: Cli.main,
      cwd: join(here, "../.."),
      cluster,
      registry,
    });

  // The CRDs and the peering object exist before the operators start (peering is detected at start).
  const setup = await start(["--standalone"]);
  await setup.apply("crd.yaml");
  await setup.apply(join(here, "../../../packages/engines/crds/peering.yaml"));
  await setup.apply([
    { apiVersion: "kopf.dev/v1", kind: "KopfPeering", metadata: { name: "default", namespace: "default" } },
  ]);
  await setup.stop();

  const regular = await start([]);
  const dev = await start(["--dev"]);
  await regular.waitForOutput("Pausing operations in favour of", { timeout: 15_000 });

  await dev.apply([example("e1")]);
  await dev.waitForOutput(`[default/e1] ${HANDLED}`);
  expect(regular.output).not.toContain(`[default/e1] ${HANDLED}`);

  await dev.stop();
  expect(dev.exitCode).toBe(0);
  await regular.waitForOutput("Resuming operations after the pause.", { timeout: 15_000 });
  await regular.apply([example("e2")]);
  await regular.waitForOutput(`[default/e2] ${HANDLED}`, { timeout: 15_000 });
  expect(regular.output).not.toContain(`[default/e1] ${HANDLED}`);
  await regular.stop();
  expect(regular.exitCode).toBe(0);
}, 60_000);

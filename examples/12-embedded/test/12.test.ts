/**
 * Example 12 on the selected cluster (the emulator over HTTPS by default): the application starts the embedded operator,
 * creates and deletes objects, and stops it; every object was greeted with the memo's templates
 * on creation and deletion, and none is left (the delete handler's finalizer was released).
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Applying,
  Clusters,
  ClusterTarget,
  EmulatorCommand,
  EmulatorServer,
  KopfRunner,
} from "@kopf/testing";
import { Context, Effect, Option, Result } from "effect";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import { main } from "../src/main.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** The kubeconfig of the selected cluster, for the application, which reads `$KUBECONFIG`. */
const kubeconfigOf = async (cluster: Clusters.Built): Promise<string | undefined> => {
  const server = Context.getOption(cluster.context, EmulatorServer);
  if (Option.isSome(server)) {
    const path = join(mkdtempSync(join(tmpdir(), "kopf-12-")), "kubeconfig");
    await Effect.runPromise(server.value.writeKubeconfig(path));
    return path;
  }
  const target = ClusterTarget.parse(process.env[ClusterTarget.ENV_VAR]);
  return Result.isSuccess(target) && target.success._tag === "Kubeconfig" ? target.success.path : undefined;
};

it("runs the operator inside the application", async () => {
  await using cluster = await Clusters.build(Clusters.selected({ emulator: Clusters.https }));
  const crd = await Effect.runPromise(EmulatorCommand.readObjects(join(here, "../../crd.yaml")));
  await Effect.runPromise(Applying.apply(crd).pipe(Effect.provideContext(cluster.context)));
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = (await kubeconfigOf(cluster)) ?? previous;
  const lines: Array<string> = [];
  kopf.configure({ format: "plain", prefix: true, write: (line) => lines.push(line) });
  const said: Array<string> = [];
  try {
    await main({ steps: 2, pause: 300, say: (text) => said.push(text) });
  } finally {
    if (previous === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previous;
  }
  expect(said).toEqual([
    "Starting the main app.",
    "Do the main app activity here. Step 1/2.",
    "Do the main app activity here. Step 2/2.",
    "Exiting the main app.",
  ]);
  for (const name of ["kopf-example-0", "kopf-example-1"]) {
    expect(lines).toContain(`[default/${name}] Hello, ${name}!`);
    expect(lines).toContain(`[default/${name}] Good bye, ${name}!`);
  }
  const runner = await KopfRunner.start({ registry: kopf.Registry.make(), cluster });
  expect(await runner.list(KopfRunner.kopfExamples, "default")).toEqual([]);
  await runner.stop();
});

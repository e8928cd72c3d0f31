/**
 * Example 12 against the emulator over HTTPS: the application starts the embedded operator,
 * creates and deletes objects, and stops it; every object was greeted with the memo's templates
 * on creation and deletion, and none is left (the delete handler's finalizer was released).
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Clusters, EmulatorCommand, KopfRunner, KubeEmulator } from "@kopf/testing";
import { Effect } from "effect";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import { main } from "../src/main.ts";

const here = dirname(fileURLToPath(import.meta.url));

it("runs the operator inside the application", async () => {
  await using cluster = await Clusters.build(Clusters.https());
  const crd = await Effect.runPromise(EmulatorCommand.readObjects(join(here, "../../crd.yaml")));
  await Effect.runPromise(
    Effect.flatMap(KubeEmulator, (emulator) => emulator.apply(crd)).pipe(
      Effect.provideContext(cluster.context as never),
    ) as Effect.Effect<void>,
  );
  const lines: Array<string> = [];
  kopf.configure({ format: "plain", prefix: true, write: (line) => lines.push(line) });
  const said: Array<string> = [];
  await main({ steps: 2, pause: 300, say: (text) => said.push(text) });
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

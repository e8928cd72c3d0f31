/**
 * Example 12 on the selected cluster (the emulator over HTTPS by default): the application starts the embedded operator,
 * creates and deletes objects, and stops it; every object was greeted with the memo's templates
 * on creation and deletion, and none is left (the delete handler's finalizer was released).
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorCommand } from "@kopf/emulator";
import { Applying, Clusters, KopfRunner } from "@kopf/testing";
import { Effect } from "effect";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import { main } from "../src/main.ts";

const here = dirname(fileURLToPath(import.meta.url));

it("runs the operator inside the application", async () => {
  await using cluster = await Clusters.build(Clusters.selected({ emulator: Clusters.https }));
  const crd = await Effect.runPromise(EmulatorCommand.readObjects(join(here, "../../crd.yaml")));
  await Effect.runPromise(Applying.apply(crd).pipe(Effect.provideContext(cluster.context)));
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

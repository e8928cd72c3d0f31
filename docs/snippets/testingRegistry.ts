/** docs/guide/testing.md: operator tests with an explicit registry, and a cluster shared by two runners. */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as kopf from "kopf";
import { expect, it } from "vitest";

const crd = join(dirname(fileURLToPath(import.meta.url)), "../../crd.yaml");
const example = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "ex1", namespace: "default" },
};

it("labels new objects", async () => {
  const registry = kopf.Registry.make();
  registry.on.create("kopfexamples", function label_it({ patch }) {
    patch.metadata.labels = { handled: "yes" };
  });
  await using runner = await KopfRunner.start({ registry, namespaces: ["default"] });
  await runner.apply(crd);
  await runner.apply(example);
  await runner.waitFor(
    KopfRunner.kopfExamples,
    "ex1",
    "default",
    (b) => b?.metadata?.labels?.handled === "yes",
  );
});

it("does not re-run a create handler after a restart", async () => {
  const created: Array<string> = [];
  let listed = 0;
  const registry = kopf.Registry.make();
  registry.on.create("kopfexamples", function create_once({ name }) {
    created.push(String(name));
  });
  registry.on.event("kopfexamples", function seen({ type }) {
    if (type === null) listed += 1; // the object came with the initial listing
  });
  await using cluster = await Clusters.build(Clusters.inProcess());
  const first = await KopfRunner.start({ registry, namespaces: ["default"], cluster });
  await first.apply(crd);
  await first.apply(example);
  await first.waitFor(KopfRunner.kopfExamples, "ex1", "default", () => created.length === 1);
  await first.stop();

  const second = await KopfRunner.start({ registry, namespaces: ["default"], cluster });
  await second.waitFor(KopfRunner.kopfExamples, "ex1", "default", () => listed > 0);
  await second.stop(); // lets the object's processing cycle finish
  expect(created).toEqual(["ex1"]);
});

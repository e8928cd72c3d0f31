/**
 * Python Kopf as the other peer (docs/behaviour/peering.md): in one namespace's `KopfPeering`, a Python Kopf
 * 1.45.2 operator with a higher priority pauses ours (our handlers do not run while it is
 * there), and ours resumes when it exits (removing its record) and handles what was created
 * meanwhile. Its own test file: Python's startup and the peering keep-alives take a few seconds.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorServer } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as kopf from "kopf";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PythonKopf } from "../src/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const NS = "compat-peering";
const PEERING = "example";

let python: string;
let cluster: Clusters.Built;
let kubeconfig: string;

beforeAll(async () => {
  python = await PythonKopf.ensure(root);
  cluster = await Clusters.build(Clusters.https());
  kubeconfig = join(mkdtempSync(join(tmpdir(), "kopf-compat-peering-")), "kubeconfig");
  const server = Context.get(cluster.context as unknown as Context.Context<EmulatorServer>, EmulatorServer);
  await Effect.runPromise(server.writeKubeconfig(kubeconfig));
  // The CRDs and the peering object exist before either operator starts.
  const setup = await KopfRunner.start({
    registry: kopf.Registry.make(),
    namespaces: ["nothing-here"],
    standalone: true,
    cluster,
    cwd: root,
  });
  await setup.apply("examples/crd.yaml");
  await setup.apply("packages/engines/crds/peering.yaml");
  await setup.apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
    { apiVersion: "kopf.dev/v1", kind: "KopfPeering", metadata: { name: PEERING, namespace: NS } },
  ]);
  await setup.stop();
}, 300_000);

afterAll(async () => {
  await cluster?.close();
});

const object = (name: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: NS, labels: { owner: "ours" } },
  spec: { field: "value" },
});

it("a Python Kopf peer with a higher priority pauses ours; ours resumes when it exits", async () => {
  const registry = kopf.Registry.make();
  registry.on.create("kopfexamples", { id: "ours", labels: { owner: "ours" } }, ({ name }) => ({
    handledBy: `ours:${String(name)}`,
  }));
  const ours = await KopfRunner.start({
    registry,
    namespaces: [NS],
    cluster,
    standalone: false,
    peeringName: PEERING,
    priority: 100,
    cwd: root,
  });
  await ours.apply(object("before"));
  await ours.waitFor(KopfRunner.kopfExamples, "before", NS, (b) => b?.status?.ours !== undefined);

  // Python Kopf joins with priority 200 (its handlers ignore objects labelled for ours).
  const theirs = PythonKopf.start({
    python,
    handlers: join(here, "../fixtures/peer.py"),
    namespace: NS,
    kubeconfig,
    peering: ["--peering", PEERING, "--priority", "200"],
  });
  try {
    await ours.waitForOutput("Pausing operations in favour of", { timeout: 30_000 });
    await ours.apply(object("during"));
    await theirs.waitForOutput("Handler 'peer_seen' succeeded.");
    // Python handled the object it saw; ours, paused, did not touch it.
    expect((await ours.get(KopfRunner.kopfExamples, "during", NS))?.status?.ours).toBeUndefined();
    expect(theirs.output()).not.toContain("Pausing operations in favour of");
  } finally {
    expect(await theirs.stop()).toBe(0);
  }
  await ours.waitForOutput("Resuming operations after the pause", { timeout: 30_000 });
  const during = await ours.waitFor(
    KopfRunner.kopfExamples,
    "during",
    NS,
    (b) => b?.status?.ours !== undefined,
  );
  expect(during?.status?.ours).toEqual({ handledBy: "ours:during" });
  await ours.stop();
  expect(ours.exitCode).toBe(0);
}, 120_000);

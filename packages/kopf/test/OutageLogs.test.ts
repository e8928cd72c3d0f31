/**
 * The log volume of an outage: 210 objects in flight (their create handlers sleeping) when the
 * emulator's HTTPS server pauses for 12 seconds. Every object's patch then fails and is retried;
 * the failed attempts are aggregated per request kind, so the retry lines stay few while each
 * object keeps its own lines, and every object is handled once the server is back.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorServer } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as kopf from "../src/index.ts";

const examples = join(dirname(fileURLToPath(import.meta.url)), "../../../examples");
const OBJECTS = 210;
const NAMESPACE = "outage";

let cluster: Clusters.Built;
let server: EmulatorServer["Service"];

beforeAll(async () => {
  cluster = await Clusters.build(Clusters.https());
  server = Context.get(cluster.context as unknown as Context.Context<EmulatorServer>, EmulatorServer);
  const setup = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
  await setup.apply(join(examples, "crd.yaml"));
  await setup.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
  await setup.stop();
}, 120_000);

afterAll(async () => {
  await cluster?.close();
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("an API outage with many objects in flight", () => {
  it("logs a bounded number of retry lines and loses no object", async () => {
    let started = 0;
    const registry = kopf.Registry.make();
    registry.on.create("kopfexamples", async function create_fn() {
      started++;
      await sleep(3_000);
      return { done: true };
    });
    const operator = await KopfRunner.start({ registry, namespaces: [NAMESPACE], cluster });
    const creator = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
    const names = Array.from({ length: OBJECTS }, (_, i) => `obj-${i}`);
    for (let i = 0; i < names.length; i += 30) {
      await Promise.all(
        names.slice(i, i + 30).map((name) =>
          creator.apply({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            metadata: { name, namespace: NAMESPACE },
          }),
        ),
      );
    }
    await creator.stop();
    const deadline = Date.now() + 60_000;
    while (started < OBJECTS && Date.now() < deadline) await sleep(100);
    const before = operator.output.split("\n").length;
    await Effect.runPromise(server.control.pause);
    await sleep(12_000);
    await Effect.runPromise(server.control.resume);
    const checker = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
    for (const name of names) {
      await checker.waitFor(
        KopfRunner.kopfExamples,
        name,
        NAMESPACE,
        (body) => body?.status?.create_fn !== undefined,
        {
          timeout: 90_000,
        },
      );
    }
    await checker.stop();
    await operator.stop();

    const lines = operator.output.split("\n").filter((line) => line.trim() !== "");
    // What a user sees at the default level (the runner also prints debug lines).
    const during = lines.slice(before).filter((line) => !line.includes("[DEBUG"));
    const retries = during.filter((line) =>
      /Request attempt|request attempts of|succeeds again after/.test(line),
    );
    expect(started).toBe(OBJECTS);
    // Without aggregation: one error line per failed attempt of every object (400+ here).
    expect(retries.length).toBeLessThanOrEqual(20);
    // Each object's own lines remain (the handler's success and the processing summary).
    for (const name of names.slice(0, 5)) {
      expect(
        lines.some((line) => line.includes(`[${NAMESPACE}/${name}] Handler 'create_fn' succeeded.`)),
      ).toBe(true);
    }
    expect(during.length).toBeLessThanOrEqual(OBJECTS * 2 + 60);
  }, 240_000);
});

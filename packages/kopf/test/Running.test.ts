/**
 * kopf.operator starts the whole operator on the emulator: a handler adopting a child without
 * naming the owner (the kit bound to the running handler), the ambient kopf.register inside it,
 * the default lifecycle (kopf.setDefaultLifecycle), admission — webhook handlers without a
 * server fail with Kopf's message — and the cycle limit adapting to the process's event loop (a
 * burst that saturates it halves the limit, unless `queueing.adaptiveCycleLimit` is off).
 */
import { KubeApi } from "@kopf/client";
import { KubeEmulator } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { afterEach, describe, expect, it } from "vitest";
import * as kopf from "../src/index.ts";

const NS = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } };
const CRD = KopfRunner.kopfExampleCrd;
const example = (name: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "ns1", labels: { app: "demo" } },
  spec: { field: "value" },
});

const quiet = { write: () => undefined };

const applyTo = (cluster: Clusters.Built, objects: ReadonlyArray<unknown>) =>
  Effect.runPromise(
    Effect.provideContext(
      Effect.flatMap(KubeEmulator, (emulator) => emulator.apply(objects)),
      cluster.context as unknown as Context.Context<KubeEmulator>,
    ),
  );

const getFrom = (cluster: Clusters.Built, name: string) =>
  Effect.runPromise(
    Effect.provideContext(
      Effect.flatMap(KubeApi, (api) => api.get(KopfRunner.kopfExamples, { name, namespace: "ns1" })),
      cluster.context,
    ),
  ) as Promise<any>;

/** A standalone operator on `ns1` of the cluster. */
const operatorOn = (
  cluster: Clusters.Built,
  registry: kopf.Registry.Registry,
  logging: { readonly write: (line: string) => void } = quiet,
) =>
  kopf.operator({
    registry,
    namespaces: ["ns1"],
    standalone: true,
    kubeApi: Layer.succeedContext(cluster.context),
    logging,
  });

const listEvents = (cluster: Clusters.Built) =>
  Effect.runPromise(
    Effect.provideContext(
      Effect.flatMap(KubeApi, (api) => api.list(KopfRunner.events, { namespace: "ns1" })),
      cluster.context,
    ),
  ).then((listed) => listed.items as ReadonlyArray<any>);

afterEach(() => kopf.setDefaultLifecycle(undefined));

describe("kopf.operator", () => {
  it("binds the hierarchies kit, sub-handlers and the default lifecycle to the running handler", async () => {
    const cluster = await Clusters.build(Clusters.inProcess());
    try {
      await applyTo(cluster, [NS, CRD]);
      const registry = kopf.Registry.make();
      const children: Array<Record<string, any>> = [];
      const chosen: Array<number> = [];
      const lines: Array<string> = [];
      kopf.setDefaultLifecycle((handlers, context) => {
        chosen.push(handlers.length);
        return kopf.lifecycles.all_at_once(handlers, context);
      });
      registry.on.create("kopfexamples.kopf.dev", function createFn() {
        const child: Record<string, any> = { apiVersion: "v1", kind: "ConfigMap", metadata: {} };
        kopf.adopt(child);
        children.push(child);
        kopf.register(() => ({ sub: true }), { id: "sub" });
      });
      const operator = operatorOn(cluster, registry, { write: (line) => void lines.push(line) });
      await operator.ready;
      await applyTo(cluster, [example("owner-1")]);
      const deadline = performance.now() + 10_000;
      let body: any;
      while (performance.now() < deadline) {
        body = await getFrom(cluster, "owner-1");
        if (body.status?.["createFn/sub"] !== undefined) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      await operator.stop();
      expect(body.status, lines.join("\n")).toBeDefined();
      expect(body.status["createFn/sub"]).toEqual({ sub: true });
      expect(children[0]).toMatchObject({
        metadata: {
          namespace: "ns1",
          labels: { app: "demo" },
          ownerReferences: [{ kind: "KopfExample", name: "owner-1", uid: body.metadata.uid }],
        },
      });
      expect(children[0]?.metadata.generateName).toBe("owner-1-");
      expect(chosen.length).toBeGreaterThan(0);
    } finally {
      await cluster.close();
    }
  });

  it("binds the hierarchies kit's owner in handlers of every resource kind (on.event, after an await too)", async () => {
    const cluster = await Clusters.build(Clusters.inProcess());
    try {
      await applyTo(cluster, [NS, CRD]);
      const registry = kopf.Registry.make();
      const adopted: Array<Record<string, any>> = [];
      registry.on.event("kopfexamples.kopf.dev", async function eventFn({ type }) {
        if (type === "DELETED" || adopted.length > 0) return;
        await new Promise((done) => setTimeout(done, 5));
        const child: Record<string, any> = { apiVersion: "v1", kind: "ConfigMap", metadata: {} };
        kopf.adopt(child);
        adopted.push(child);
      });
      const operator = operatorOn(cluster, registry);
      await operator.ready;
      await applyTo(cluster, [example("owner-2")]);
      const deadline = performance.now() + 10_000;
      while (performance.now() < deadline && adopted.length === 0) {
        await new Promise((done) => setTimeout(done, 50));
      }
      await operator.stop();
      const body = await getFrom(cluster, "owner-2");
      expect(adopted[0]).toMatchObject({
        metadata: {
          namespace: "ns1",
          generateName: "owner-2-",
          ownerReferences: [{ kind: "KopfExample", name: "owner-2", uid: body.metadata.uid }],
        },
      });
    } finally {
      await cluster.close();
    }
  });

  it("posts kopf.info() after an await through the operator running the handler, with two operators", async () => {
    const clusters = [await Clusters.build(Clusters.inProcess()), await Clusters.build(Clusters.inProcess())];
    const [first, second] = clusters as [Clusters.Built, Clusters.Built];
    const stops: Array<() => Promise<void>> = [];
    try {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((done) => {
        release = done;
      });
      const seen: Array<string> = [];
      const awaiting = kopf.Registry.make();
      awaiting.on.create("kopfexamples.kopf.dev", async function awaitFn({ body, name }) {
        seen.push(`awaiting ${name}`);
        await gate;
        kopf.info(body, { reason: "Awaited", message: "Posted after an await." });
        seen.push(`posted ${name}`);
      });
      const quick = kopf.Registry.make();
      quick.on.create("kopfexamples.kopf.dev", function quickFn({ name }) {
        seen.push(`quick ${name}`);
      });
      for (const [cluster, registry] of [
        [first, awaiting],
        [second, quick],
      ] as const) {
        await applyTo(cluster, [NS, CRD]);
        const operator = operatorOn(cluster, registry);
        stops.push(() => operator.stop());
        await operator.ready;
      }
      const until = async (done: () => boolean) => {
        const deadline = performance.now() + 10_000;
        while (!done() && performance.now() < deadline) await new Promise((wake) => setTimeout(wake, 20));
      };
      await applyTo(first, [example("first-1")]);
      await until(() => seen.includes("awaiting first-1"));
      // The other operator runs a handler while the first one's handler awaits.
      await applyTo(second, [example("second-1")]);
      await until(() => seen.includes("quick second-1"));
      release();
      await until(() => seen.includes("posted first-1"));
      const awaited = async (cluster: Clusters.Built) => {
        let found: ReadonlyArray<any> = [];
        const deadline = performance.now() + 3_000;
        while (found.length === 0 && performance.now() < deadline) {
          await new Promise((wake) => setTimeout(wake, 50));
          found = (await listEvents(cluster)).filter((e: any) => e.reason === "Awaited");
        }
        return found.map((e: any) => e.involvedObject?.name);
      };
      expect(await awaited(first)).toEqual(["first-1"]);
      expect(await awaited(second)).toEqual([]);
    } finally {
      for (const stop of stops) await stop();
      for (const cluster of clusters) await cluster.close();
    }
  });

  it("refuses webhook handlers without an admission server, as Kopf does", async () => {
    const cluster = await Clusters.build(Clusters.inProcess());
    try {
      await applyTo(cluster, [NS, CRD]);
      const registry = kopf.Registry.make();
      registry.on.validate("kopfexamples.kopf.dev", function checkFn() {});
      const done = kopf.run({
        registry,
        namespaces: ["ns1"],
        standalone: true,
        kubeApi: Layer.succeedContext(cluster.context),
        logging: quiet,
        signal: new AbortController().signal,
      });
      await expect(done).rejects.toMatchObject({
        reason: "TaskFailed",
        message: expect.stringContaining("Admission handlers exist, but no admission server/tunnel"),
      });
    } finally {
      await cluster.close();
    }
  });

  it("lets handlers run by KopfRunner post events after an await", async () => {
    const registry = kopf.Registry.make();
    registry.on.create("kopfexamples.kopf.dev", async function createFn({ body }) {
      await new Promise((done) => setTimeout(done, 10));
      kopf.info(body, { reason: "Awaited", message: "Posted after an await." });
    });
    await using runner = await KopfRunner.start({ registry, namespaces: ["ns1"], standalone: true });
    await runner.apply([NS, CRD]);
    await runner.apply([example("owner-2")]);
    const deadline = performance.now() + 10_000;
    let posted: ReadonlyArray<any> = [];
    while (posted.length === 0 && performance.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50));
      posted = (await runner.list(KopfRunner.events, "ns1")).filter((e: any) => e.reason === "Awaited");
    }
    expect(posted.map((e: any) => [e.message, e.involvedObject?.name])).toEqual([
      ["Posted after an await.", "owner-2"],
    ]);
  });

  // A burst of objects against the emulator's HTTPS server in this thread keeps the thread's event
  // loop busy (the server's work and the operator's): the objects are there before the operator
  // starts, so its first listing queues them all, and the first reading of the loop's load halves
  // the limit (the operator says so).
  for (const adaptive of [true, false])
    it(`${adaptive ? "adapts" : "keeps"} its cycle limit in a burst that saturates the event loop${adaptive ? "" : " with adaptiveCycleLimit off"}`, async () => {
      const cluster = await Clusters.build(Clusters.https());
      try {
        const objects = Array.from({ length: 400 }, (_, i) => example(`burst-${i}`));
        await applyTo(cluster, [NS, CRD, ...objects]);
        const registry = kopf.Registry.make();
        let handled = 0;
        registry.on.create("kopfexamples.kopf.dev", function createFn() {
          handled += 1;
        });
        const lines: Array<string> = [];
        const operator = kopf.operator({
          registry,
          namespaces: ["ns1"],
          standalone: true,
          kubeApi: Layer.succeedContext(cluster.context),
          settings: { queueing: { cycleLimit: 2, adaptiveCycleLimit: adaptive } },
          logging: { write: (line) => void lines.push(line), level: "Debug" },
        });
        await operator.ready;
        const deadline = performance.now() + 60_000;
        while (handled < objects.length && performance.now() < deadline)
          await new Promise((done) => setTimeout(done, 20));
        await operator.stop();
        expect(handled).toBe(objects.length);
        const adapted = lines.filter((line) => line.includes("Cycles in flight for kopfexamples"));
        if (adaptive) expect(adapted.join("\n")).toContain("at most 1 (was 2).");
        else expect(adapted).toEqual([]);
      } finally {
        await cluster.close();
      }
    });
});

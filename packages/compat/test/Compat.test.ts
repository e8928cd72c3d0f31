/**
 * The compatibility suite: Python Kopf (from PyPI, in .cache/compat-venv) and this port run the
 * same handlers (fixtures/handlers.py and .ts) against one emulator over HTTPS.
 *
 * - What they leave on objects they handled alone — Kopf's annotations, finalizers and status —
 *   is byte-identical (progress timestamps masked after checking their format), also half-way
 *   through a cycle (one handler done, one delayed by a temporary error).
 * - Objects are handed over in both directions, fully handled or half-way: neither operator
 *   re-runs a handler the other one already ran; each finishes what the other left.
 * - An update handled by Kopf of an object created under ours, and the deletion handled by ours
 *   of an object Kopf put its finalizer on.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { EmulatorServer, type KubeEmulator } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as kopf from "kopf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OnClusterState, PythonKopf } from "../src/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const NS = "compat";
const ex = KopfRunner.kopfExamples;
const LAST = `${OnClusterState.PREFIX}last-handled-configuration`;
const SECOND = `${OnClusterState.PREFIX}second`;

let python: string;
let cluster: Clusters.Built;
let kubeconfig: string;
const registry = kopf.Registry.make(); // our handlers, loaded once, shared by our runs

const object = (name: string, scenario?: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: NS, ...(scenario === undefined ? {} : { labels: { scenario } }) },
  spec: { field: "value", items: ["a", "b"] },
});

const python_ = () =>
  PythonKopf.start({ python, handlers: join(here, "../fixtures/handlers.py"), namespace: NS, kubeconfig });

const ours = () =>
  KopfRunner.start({
    args: ["run", "-n", NS, "--standalone", "--verbose", join(here, "../fixtures/handlers.ts")],
    cli: Cli.main,
    cluster,
    registry,
  });

/** A runner only for reading and writing objects (no handlers). */
const client = () =>
  KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["nothing-here"], cluster });

// The object and its status are patched separately (by both): wait for both.
const done = (b: KopfRunner.Body | undefined) =>
  b?.metadata?.annotations?.[LAST] !== undefined && b?.status?.second !== undefined;
const halfway = (b: KopfRunner.Body | undefined) =>
  (b?.metadata?.annotations?.[SECOND] ?? "").includes('"retries":1') && b?.status?.first !== undefined;

beforeAll(async () => {
  python = await PythonKopf.ensure(root);
  cluster = await Clusters.build(Clusters.https());
  const context = cluster.context as unknown as Context.Context<KubeEmulator | EmulatorServer>;
  kubeconfig = join(mkdtempSync(join(tmpdir(), "kopf-compat-")), "kubeconfig");
  await Effect.runPromise(Context.get(context, EmulatorServer).writeKubeconfig(kubeconfig));
  const setup = await client();
  await setup.apply(join(root, "examples/crd.yaml"));
  await setup.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  await setup.stop();
}, 300_000);

afterAll(async () => {
  await cluster?.close();
});

const states: Record<string, OnClusterState.State> = {};

describe("Python Kopf and this port", () => {
  it("leave the same state on objects each handled alone, half-way and at the end", async () => {
    const reader = await client();
    const kopfOp = python_();
    await reader.apply(object("by-kopf"));
    states.kopfHalfway = OnClusterState.stateOf(
      await reader.waitFor(ex, "by-kopf", NS, halfway, { timeout: 30_000 }),
    );
    states.kopfDone = OnClusterState.stateOf(
      await reader.waitFor(ex, "by-kopf", NS, done, { timeout: 30_000 }),
    );
    expect(await kopfOp.stop()).toBe(0);

    const ourOp = await ours();
    await reader.apply(object("by-us"));
    states.oursHalfway = OnClusterState.stateOf(
      await reader.waitFor(ex, "by-us", NS, halfway, { timeout: 30_000 }),
    );
    states.oursDone = OnClusterState.stateOf(
      await reader.waitFor(ex, "by-us", NS, done, { timeout: 30_000 }),
    );
    await ourOp.stop();
    await reader.stop();

    // Not vacuous: half-way, both stored progress for both handlers; at the end, the results.
    expect(Object.keys(states.kopfHalfway.annotations)).toEqual([`${OnClusterState.PREFIX}first`, SECOND]);
    expect(states.kopfDone.status).toEqual({
      first: { message: "first done" },
      second: { message: "second done", retry: 1 },
    });
    expect(states.kopfDone.finalizers).toEqual(["kopf.zalando.org/KopfFinalizerMarker"]);
    expect(states.kopfDone.annotations[LAST]).toBe(states.oursDone.annotations[LAST]);
    expect(OnClusterState.differences(states.kopfHalfway, states.oursHalfway)).toEqual([]);
    expect(OnClusterState.differences(states.kopfDone, states.oursDone)).toEqual([]);
    // Ours saw Kopf's object and left it alone: it was fully handled already.
    expect(ourOp.output).not.toMatch(/\[compat\/by-kopf\] Handler/);
    expect(ourOp.exitCode).toBe(0);
  });

  it("leave the same state with sub-handlers and permanent failures", async () => {
    const reader = await client();
    // Half-way: the second child has failed once and waits (a state stable for its 2-second delay).
    const subsHalfway = (b: KopfRunner.Body | undefined) =>
      (b?.metadata?.annotations?.[`${OnClusterState.PREFIX}parent.b`] ?? "").includes('"retries":1');
    const run = async (suffix: string, operator: { stop: () => Promise<unknown> }) => {
      await reader.apply(object(`subs-${suffix}`, "subs"));
      await reader.apply(object(`fail-${suffix}`, "fail"));
      const halfway = await reader.waitFor(ex, `subs-${suffix}`, NS, subsHalfway, { timeout: 30_000 });
      const subs = await reader.waitFor(
        ex,
        `subs-${suffix}`,
        NS,
        (b) => done(b) && b?.status?.["parent/b"] !== undefined,
        {
          timeout: 30_000,
        },
      );
      const fail = await reader.waitFor(ex, `fail-${suffix}`, NS, done, { timeout: 30_000 });
      await operator.stop();
      return {
        halfway: OnClusterState.stateOf(halfway),
        subs: OnClusterState.stateOf(subs),
        fail: OnClusterState.stateOf(fail),
      };
    };
    const byKopf = await run("kopf", python_());
    const byUs = await run("us", await ours());
    await reader.stop();
    // Not vacuous: the sub-handlers' progress is there half-way, their results at the end.
    expect(Object.keys(byKopf.halfway.annotations).length).toBeGreaterThanOrEqual(4);
    expect(byKopf.subs.status).toMatchObject({
      "parent/a": { item: "a", retry: 0 },
      "parent/b": { item: "b", retry: 1 },
    });
    expect(OnClusterState.differences(byKopf.halfway, byUs.halfway)).toEqual([]);
    expect(OnClusterState.differences(byKopf.subs, byUs.subs)).toEqual([]);
    expect(OnClusterState.differences(byKopf.fail, byUs.fail)).toEqual([]);
  });

  it("take over half-handled objects without re-running handlers: Kopf to ours", async () => {
    const reader = await client();
    const kopfOp = python_();
    await reader.apply(object("kopf-to-us"));
    await reader.waitFor(ex, "kopf-to-us", NS, halfway, { timeout: 30_000 });
    expect(await kopfOp.stop()).toBe(0);
    expect(kopfOp.output()).toContain("Handler 'first' succeeded.");

    const ourOp = await ours();
    const body = await reader.waitFor(ex, "kopf-to-us", NS, done, { timeout: 30_000 });
    await ourOp.stop();
    await reader.stop();
    expect(ourOp.output).toContain("[compat/kopf-to-us] Handler 'second' succeeded.");
    expect(ourOp.output).not.toContain("[compat/kopf-to-us] Handler 'first'");
    expect(OnClusterState.differences(OnClusterState.stateOf(body), states.kopfDone!)).toEqual([]);
  });

  it("take over half-handled objects without re-running handlers: ours to Kopf", async () => {
    const reader = await client();
    const ourOp = await ours();
    await reader.apply(object("us-to-kopf"));
    await reader.waitFor(ex, "us-to-kopf", NS, halfway, { timeout: 30_000 });
    await ourOp.stop();
    expect(ourOp.output).toContain("[compat/us-to-kopf] Handler 'first' succeeded.");

    const kopfOp = python_();
    const body = await reader.waitFor(ex, "us-to-kopf", NS, done, { timeout: 30_000 });
    await kopfOp.waitForOutput("[compat/us-to-kopf] Creation is processed");
    expect(await kopfOp.stop()).toBe(0);
    await reader.stop();
    expect(kopfOp.output()).toContain("[compat/us-to-kopf] Handler 'second' succeeded.");
    expect(kopfOp.output()).not.toContain("[compat/us-to-kopf] Handler 'first'");
    // Kopf did not re-handle the objects ours handled completely either.
    expect(kopfOp.output()).not.toMatch(/\[compat\/by-us\] Handler/);
    expect(OnClusterState.differences(OnClusterState.stateOf(body), states.oursDone!)).toEqual([]);
  });

  it("handle updates and deletions of each other's objects", async () => {
    const reader = await client();
    const kopfOp = python_();
    await reader.patch(ex, "by-us", NS, { spec: { field: "changed" } });
    const updated = await reader.waitFor(
      ex,
      "by-us",
      NS,
      (b) => b?.status?.["field_changed/spec.field"] !== undefined,
      {
        timeout: 30_000,
      },
    );
    expect(updated?.status?.["field_changed/spec.field"]).toEqual({ old: "value", new: "changed" });
    expect(await kopfOp.stop()).toBe(0);

    const ourOp = await ours();
    await reader.delete(ex, "by-kopf", NS);
    await reader.waitFor(ex, "by-kopf", NS, (b) => b === undefined, { timeout: 30_000 });
    await ourOp.stop();
    await reader.stop();
    expect(ourOp.output).toContain("[compat/by-kopf] Handler 'gone' succeeded.");
  });
});

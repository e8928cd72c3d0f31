/**
 * Peering end to end (docs/behaviour/peering.md) on the cluster KOPF_TEST_CLUSTER names — the
 * emulator in the default suite, a real kube-apiserver in `npm run test:real` — with operators run
 * by KopfRunner's registry form, in real time: the peering CRDs as `kopf run` expects them; a
 * lower priority pauses while a higher one runs and resumes once the higher one exits (its record
 * removed on exit), but a stopping one keeps its record until its running handlers have finished
 * and persisted their results (so nothing is handled twice); the same priority pauses both with
 * Kopf's warning; a `kopf freeze` record pauses a running operator until it expires; a mandatory
 * peering waits for its object; namespace patterns peer in every matching namespace, also in ones
 * created later, and a freeze by pattern pauses the operator until resumed or until its namespace
 * goes away; with a mandatory peering, a namespace created later (with an object in it) is
 * watched only once its peering object exists. Paused operators run no handlers, and what was
 * created meanwhile is handled after resuming. The assertions are on the peering object's status
 * (Kopf's record format) and on the handler calls and log lines. Each test has its own namespace
 * (and cluster-wide peering name), so they can share one cluster.
 */
import { describe, expect, it } from "vitest";
import * as Peering from "../../src/Peering.ts";
import * as Scene from "../fixtures/PeeringScene.ts";

const RESUMED = "Resuming operations after the pause.";

describe("peering on a cluster", () => {
  it("the lower priority pauses while the higher one runs, and resumes when it exits", async () => {
    await using scene = await Scene.open();
    const low = await scene.operator("low", { priority: 0 });
    await low.waitForOutput(`Keep-alive in 'default' in '${scene.namespace}': ok.`);
    const high = await scene.operator("high", { priority: 10 });
    await low.waitForOutput(
      "Pausing operations in favour of [<Peer high: priority=10, lifetime=60, lastseen='",
    );

    const records = await scene.waitForRecords((r) => "low" in r && "high" in r);
    expect(Object.keys(records).sort()).toEqual(["high", "low"]);
    for (const [who, priority] of [
      ["high", 10],
      ["low", 0],
    ] as const) {
      expect(Object.keys(records[who]).sort()).toEqual(["lastseen", "lifetime", "priority"]);
      expect(records[who]).toMatchObject({ priority, lifetime: 60 });
      expect(records[who].lastseen).toMatch(Scene.LASTSEEN);
    }

    await scene.create("e1");
    await high.waitForOutput(Scene.handled(scene.namespace, "e1"));
    await high.stop();
    expect(high.exitCode).toBe(0);
    // The record is removed on exit (not left to expire), so the lower one resumes at once.
    expect(Object.keys(await scene.waitForRecords((r) => !("high" in r)))).toEqual(["low"]);
    await low.waitForOutput(RESUMED);

    await scene.create("e2");
    await low.waitForOutput(Scene.handled(scene.namespace, "e2"));
    expect(scene.calls).toEqual(["high:e1", "low:e2"]);
    expect(low.output).not.toContain(Scene.handled(scene.namespace, "e1"));
  });

  it("a stopping higher priority keeps its record until its running handler has finished and persisted", async () => {
    await using scene = await Scene.open();
    const low = await scene.operator("low", { priority: 0 });
    await low.waitForOutput(`Keep-alive in 'default' in '${scene.namespace}': ok.`);
    let release: () => void = () => undefined;
    const held = new Promise<void>((done) => {
      release = done;
    });
    const high = await scene.operator("high", {
      priority: 10,
      hold: (name) => (name === "e1" ? held : undefined),
    });
    await low.waitForOutput("Pausing operations in favour of [<Peer high: priority=10");

    await scene.create("e1");
    await high.waitForOutput(`[${scene.namespace}/e1] Handler 'created' is invoked.`);
    const stopped = high.stop();
    await high.waitForOutput("Stop-flag is raised. Operator is stopping.");
    // While its handler still runs, the stopping operator is still present: the lower one stays
    // paused (Kopf removes the record at once, and the lower one would handle e1 again).
    await new Promise((done) => setTimeout(done, 500));
    expect(Object.keys((await scene.records()) ?? {}).sort()).toEqual(["high", "low"]);
    expect(low.output).not.toContain(RESUMED);

    release();
    await stopped;
    expect(high.exitCode).toBe(0);
    expect(high.output).toContain(Scene.handled(scene.namespace, "e1"));
    expect(Object.keys(await scene.waitForRecords((r) => !("high" in r)))).toEqual(["low"]);
    await low.waitForOutput(RESUMED);
    await scene.create("e2");
    await low.waitForOutput(Scene.handled(scene.namespace, "e2"));
    // Handled once, by the operator that started it: none lost, none re-run.
    expect(scene.calls).toEqual(["high:e1", "low:e2"]);
  });

  it("the same priority pauses both with Kopf's warning; the one left resumes and handles the backlog", async () => {
    await using scene = await Scene.open({ clusterwide: true });
    const first = await scene.operator("first", { priority: 5 });
    await first.waitForOutput(`Keep-alive in '${scene.peering}' cluster-wide: ok.`);
    const second = await scene.operator("second", { priority: 5 });
    for (const [runner, other] of [
      [first, "second"],
      [second, "first"],
    ] as const) {
      await runner.waitForOutput(
        `Possibly conflicting operators with the same priority: [<Peer ${other}: priority=5, lifetime=60, lastseen='`,
      );
      await runner.waitForOutput("Pausing all operators, including self: [<Peer ");
    }
    const records = await scene.waitForRecords((r) => "first" in r && "second" in r);
    expect(records.first).toMatchObject({ priority: 5, lifetime: 60 });
    expect(records.second).toMatchObject({ priority: 5, lifetime: 60 });

    // Nobody handles what is created while both are paused...
    await scene.create("e1");
    await first.stop();
    expect(first.exitCode).toBe(0);
    expect(Object.keys(await scene.waitForRecords((r) => !("first" in r)))).toEqual(["second"]);
    // ...until the conflict is gone: then the one left handles it, after resuming.
    await second.waitForOutput(`${RESUMED} Conflicting operators with the same priority are gone.`);
    await second.waitForOutput(Scene.handled(scene.namespace, "e1"));
    expect(Scene.position(second, Scene.handled(scene.namespace, "e1"))).toBeGreaterThan(
      Scene.position(second, RESUMED),
    );
    expect(scene.calls).toEqual(["second:e1"]);
  });

  it("a freeze record pauses a running operator until it expires", async () => {
    await using scene = await Scene.open();
    const solo = await scene.operator("solo", { priority: 0 });
    await scene.create("e1");
    await solo.waitForOutput(Scene.handled(scene.namespace, "e1"));

    // `kopf freeze -n NS -P default -t 2 -i freezer@test` (priority 100).
    await scene.run(
      Peering.freeze({
        identity: "freezer@test",
        name: "default",
        clusterwide: false,
        namespaces: [scene.namespace],
        lifetime: 2,
      }),
    );
    await solo.waitForOutput(
      "Pausing operations in favour of [<Peer freezer@test: priority=100, lifetime=2, lastseen='",
    );
    await scene.create("e2");
    // On expiry the operator re-evaluates by itself (it touches its own record), cleans the
    // dead record, resumes, and handles what was created meanwhile.
    await solo.waitForOutput(RESUMED, { timeout: 15_000 });
    await solo.waitForOutput(Scene.handled(scene.namespace, "e2"));
    expect(Scene.position(solo, Scene.handled(scene.namespace, "e2"))).toBeGreaterThan(
      Scene.position(solo, RESUMED),
    );
    expect(Object.keys(await scene.waitForRecords((r) => !("freezer@test" in r)))).toEqual(["solo"]);
    expect(scene.calls).toEqual(["solo:e1", "solo:e2"]);
  });

  it("a mandatory peering keeps the operator paused until its object exists", async () => {
    await using scene = await Scene.open({ peeringObject: false });
    // A short lifetime makes the keep-alive tick every second: the fence below.
    const strict = await scene.operator("strict", { mandatory: true, lifetime: 3 });
    const notFound = `Keep-alive in 'default' in '${scene.namespace}': not found.`;
    await strict.waitForOutput(notFound);
    await scene.create("e1");
    // One more keep-alive after the creation: the operator had the time to handle e1, had it run.
    await Scene.waitForOutputAfter(strict, strict.output.length, notFound);
    expect(await scene.records()).toBeUndefined();
    expect(strict.output).not.toContain(Scene.handled(scene.namespace, "e1"));

    await scene.createPeering();
    await strict.waitForOutput(RESUMED);
    await strict.waitForOutput(Scene.handled(scene.namespace, "e1"));
    expect(Scene.position(strict, Scene.handled(scene.namespace, "e1"))).toBeGreaterThan(
      Scene.position(strict, RESUMED),
    );
    expect(scene.calls).toEqual(["strict:e1"]);
  });

  it("namespace patterns peer in every matching namespace, as namespaces come and go", async () => {
    await using scene = await Scene.open();
    const later = `${scene.namespace}-later`;
    // A record is written on each keep-alive: a short lifetime makes them tick every second, so
    // the record reaches a peering object created after its namespace (seen first) without delay.
    const watcher = await scene.operator("watcher", { namespaces: [`${scene.namespace}*`], lifetime: 3 });
    await scene.waitForRecords((r) => "watcher" in r);
    await scene.createNamespace(later);
    const records = await scene.waitForRecords((r) => "watcher" in r, later);
    expect(records.watcher).toMatchObject({ priority: 0, lifetime: 3 });
    expect(records.watcher.lastseen).toMatch(Scene.LASTSEEN);

    // `kopf freeze -n 'NS*'` writes into both; the operator pauses, and resumes on `kopf resume`.
    const freeze = { identity: "ops@box", name: "default", clusterwide: false, lifetime: 600 };
    await scene.run(Peering.freeze({ ...freeze, namespaces: [`${scene.namespace}*`] }));
    expect(Object.keys((await scene.records()) ?? {}).sort()).toEqual(["ops@box", "watcher"]);
    expect(Object.keys((await scene.records(later)) ?? {}).sort()).toEqual(["ops@box", "watcher"]);
    await watcher.waitForOutput("Pausing operations in favour of [<Peer ops@box: priority=100, lifetime=600");
    await scene.create("e1");
    await scene.run(Peering.resume({ ...freeze, namespaces: [`${scene.namespace}*`] }));
    await watcher.waitForOutput(RESUMED);
    await watcher.waitForOutput(Scene.handled(scene.namespace, "e1"));
    expect(Scene.position(watcher, Scene.handled(scene.namespace, "e1"))).toBeGreaterThan(
      Scene.position(watcher, RESUMED),
    );

    // A freeze in the later namespace alone pauses the operator until that namespace is gone.
    const before = watcher.output.length;
    await scene.run(Peering.freeze({ ...freeze, namespaces: [later] }));
    await Scene.waitForOutputAfter(watcher, before, "Pausing operations in favour of [<Peer ops@box");
    const paused = watcher.output.length;
    await scene.create("e2");
    await scene.deleteNamespace(later);
    await Scene.waitForOutputAfter(watcher, paused, Scene.handled(scene.namespace, "e2"), 60_000);
    expect(scene.calls).toEqual(["watcher:e1", "watcher:e2"]);
  });

  it("a mandatory peering watches a namespace created later only once its peering object exists there", async () => {
    await using scene = await Scene.open();
    const later = `${scene.namespace}-later`;
    // A short lifetime makes the keep-alive tick every second: the fence below.
    const strict = await scene.operator("strict", {
      mandatory: true,
      namespaces: [`${scene.namespace}*`],
      lifetime: 3,
    });
    await scene.create("e1");
    await strict.waitForOutput(Scene.handled(scene.namespace, "e1"));

    // The namespace and an object in it, one right after the other; no peering object there.
    await scene.createNamespace(later, { peeringObject: false, objects: ["e2"] });
    const notFound = `Keep-alive in 'default' in '${later}': not found.`;
    await strict.waitForOutput(notFound);
    // One more keep-alive after that: the operator had the time to handle e2, had it watched.
    await Scene.waitForOutputAfter(strict, strict.output.indexOf(notFound) + notFound.length, notFound);
    expect(strict.output).not.toContain(Scene.handled(later, "e2"));
    expect(scene.calls).toEqual(["strict:e1"]);

    const before = strict.output.length;
    await scene.createPeering(later);
    await Scene.waitForOutputAfter(strict, before, RESUMED);
    await strict.waitForOutput(Scene.handled(later, "e2"));
    expect(Scene.position(strict, Scene.handled(later, "e2"))).toBeGreaterThan(
      strict.output.indexOf(RESUMED, before),
    );
    expect(scene.calls).toEqual(["strict:e1", "strict:e2"]);
    expect(Object.keys(await scene.waitForRecords((r) => "strict" in r, later))).toEqual(["strict"]);
  });
});

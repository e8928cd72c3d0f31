/**
 * `kopf freeze` and `kopf resume`: option parsing (flags, KOPF_FREEZE_* and KOPF_RESUME_* variables,
 * required peering and lifetime, -n/-A exclusivity, --dev's priority), and both commands end to
 * end on the cluster KOPF_TEST_CLUSTER names (the emulator by default; a real kube-apiserver in
 * `npm run test:real`) with the peering CRDs: freeze writes the presence record of the identity
 * with its priority and lifetime, resume removes it; a running operator pauses on the freeze,
 * handles nothing meanwhile, and resumes on the resume; namespace patterns select the existing
 * namespaces they match (matching none fails naming them); without the CRDs, freeze fails naming
 * them.
 * The tests share the cluster on the real tier, so each makes its own preconditions.
 */

import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Peering, PeeringCrds } from "@kopf/engines";
import { Applying, Clusters, KopfRunner } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Schedule from "effect/Schedule";
import * as kopf from "kopf";
import { Cli, PeeringCommands } from "../src/index.ts";

const planOf = (
  command: "freeze" | "resume",
  args: PeeringCommands.PeeringArgs,
  env: Record<string, string> = {},
) => PeeringCommands.plan(command, args, env);

describe("PeeringCommands.plan", () => {
  it("freezes cluster-wide with Kopf's default priority", () => {
    const plan = planOf("freeze", { peering: "default", lifetime: 600, "all-namespaces": true });
    assert.deepStrictEqual(Result.getOrThrow(plan), {
      identity: undefined,
      name: "default",
      clusterwide: true,
      namespaces: [],
      priority: 100,
      lifetime: 600,
      kubeconfig: undefined,
      context: undefined,
    });
  });

  it.each([
    [{ peering: "p", lifetime: 1, dev: true, priority: 5 }, {}, 666],
    [{ peering: "p", lifetime: 1, priority: 5 }, {}, 5],
    [{ peering: "p", lifetime: 1 }, { KOPF_FREEZE_PRIORITY: "7" }, 7],
  ])("takes the priority from %j / %j: %d", (args, env, priority) => {
    assert.strictEqual(Result.getOrThrow(planOf("freeze", args, env)).priority, priority);
  });

  it("reads the environment of its own command", () => {
    const plan = Result.getOrThrow(
      planOf(
        "resume",
        {},
        { KOPF_RESUME_PEERING: "team", KOPF_RESUME_NAMESPACES: "a b", KOPF_FREEZE_PEERING: "other" },
      ),
    );
    assert.deepStrictEqual(
      [plan.name, plan.namespaces, plan.clusterwide, plan.lifetime],
      ["team", ["a", "b"], false, 0],
    );
  });

  it.each([
    ["freeze", { lifetime: 1 }, "Missing option --peering"],
    ["freeze", { peering: "p" }, "Missing option --lifetime"],
    ["freeze", { peering: "p", lifetime: -1 }, "--lifetime must be a positive number"],
    [
      "resume",
      { peering: "p", namespace: ["a"], "all-namespaces": true },
      "Either --namespace or --all-namespaces",
    ],
  ] as const)("%s %j is refused: %s", (command, args, message) => {
    const plan = planOf(command, args);
    assert.isTrue(Result.isFailure(plan));
    if (Result.isFailure(plan)) assert.include(plan.failure.message, message);
  });
});

const crds = kopf.Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  namespaced: false,
});

/**
 * Deletes the peering CRDs of `kopf.dev` if a previous test left them, and waits until the
 * cluster no longer serves them (a real API server takes a moment to remove a CRD).
 */
const withoutPeeringCrds = Effect.gen(function* () {
  const api = yield* KubeApi;
  for (const crd of PeeringCrds.definitions) {
    yield* api.delete(crds, { name: String(crd.metadata?.name) }).pipe(
      Effect.catchIf(
        (error) => error._tag === "KubeApiError" && error.reason === "NotFound",
        () => Effect.void,
      ),
    );
  }
  yield* Effect.flatMap(
    Effect.all([Peering.resources(true), Peering.resources(false)]),
    ([cluster, namespaced]) =>
      cluster.length + namespaced.length === 0 ? Effect.void : Effect.fail("still served" as const),
  ).pipe(
    Effect.retry({
      while: (error) => error === "still served",
      schedule: Schedule.spaced("100 millis"),
      times: 300,
    }),
  );
});

/** The CLI's io on a cluster, keeping everything written (`output`). */
const captured = (cluster: Clusters.Built) => {
  const io = {
    output: "",
    stdout: (text: string) => {
      io.output += text;
    },
    stderr: (text: string) => {
      io.output += text;
    },
    kubeApi: Layer.succeedContext(cluster.context),
  };
  return io;
};

/** Deletes the namespaces on dispose, so a long-lived cluster (kind, k3d) keeps none of them. */
const removing = (cluster: Clusters.Built, names: ReadonlyArray<string>): AsyncDisposable => ({
  [Symbol.asyncDispose]: async () => {
    const namespaces = kopf.Resource.make({
      group: "",
      version: "v1",
      plural: "namespaces",
      namespaced: false,
    });
    for (const name of names) {
      await Effect.runPromise(
        Effect.provideContext(
          Effect.flatMap(KubeApi, (api) => api.delete(namespaces, { name })).pipe(Effect.ignore),
          cluster.context,
        ),
      );
    }
  },
});

const kopfPeerings = kopf.Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfpeerings",
  namespaced: true,
});

describe("kopf freeze / kopf resume", () => {
  it("write and remove the presence record of the identity", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const runner = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
    await runner.apply([...PeeringCrds.definitions]);
    await runner.apply({
      apiVersion: "kopf.dev/v1",
      kind: "ClusterKopfPeering",
      metadata: { name: "default" },
    });
    const peerings = kopf.Resource.make({
      group: "kopf.dev",
      version: "v1",
      plural: "clusterkopfpeerings",
      namespaced: false,
    });
    const io = captured(cluster);
    const frozen = await Cli.main(["freeze", "-A", "-P", "default", "-t", "600", "-i", "me@box"], io);
    assert.strictEqual(frozen.exitCode, 0, io.output);
    assert.include(io.output, "Frozen the peering 'default' cluster-wide for 600s as me@box (priority 100).");
    const record = (await runner.get(peerings, "default"))?.status?.["me@box"];
    assert.deepInclude(record, { priority: 100, lifetime: 600 });
    const resumed = await Cli.main(["resume", "-A", "-P", "default", "-i", "me@box"], io);
    assert.strictEqual(resumed.exitCode, 0, io.output);
    assert.isUndefined((await runner.get(peerings, "default"))?.status?.["me@box"]);
    await runner.stop();
  });

  it("pause a running operator until resumed; what was created meanwhile is handled after", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const namespace = `freeze-${process.pid}-${Date.now().toString(36)}`;
    await using _cleanup = removing(cluster, [namespace]);
    const calls: Array<string> = [];
    const registry = kopf.Registry.make();
    registry.on.create("kopfexamples.kopf.dev", function created({ name }) {
      calls.push(String(name));
    });
    // Peering is detected at start: the CRDs and the peering object exist before the operator.
    await Effect.runPromise(
      Effect.provideContext(
        Applying.apply([
          ...PeeringCrds.definitions,
          KopfRunner.kopfExampleCrd,
          { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
          PeeringCrds.peeringObject("default", namespace),
        ]),
        cluster.context,
      ),
    );
    await using runner = await KopfRunner.start({
      registry,
      namespaces: [namespace],
      identity: "op",
      cluster,
    });
    const io = captured(cluster);
    const example = (name: string) => ({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name, namespace },
      spec: {},
    });
    const handled = (name: string) => `[${namespace}/${name}] Handler 'created' succeeded.`;
    await runner.apply([example("before")]);
    await runner.waitForOutput(handled("before"));

    const frozen = await Cli.main(
      ["freeze", "-n", namespace, "-P", "default", "-t", "600", "-i", "ops@box"],
      io,
    );
    assert.strictEqual(frozen.exitCode, 0, io.output);
    assert.include(
      io.output,
      `Frozen the peering 'default' in ${namespace} for 600s as ops@box (priority 100).`,
    );
    await runner.waitForOutput(
      "Pausing operations in favour of [<Peer ops@box: priority=100, lifetime=600, lastseen='",
    );
    const record = (await runner.get(kopfPeerings, "default", namespace))?.status?.["ops@box"];
    assert.deepStrictEqual(Object.keys(record).sort(), ["lastseen", "lifetime", "priority"]);
    assert.match(record.lastseen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    await runner.apply([example("during")]);

    const resumed = await Cli.main(["resume", "-n", namespace, "-P", "default", "-i", "ops@box"], io);
    assert.strictEqual(resumed.exitCode, 0, io.output);
    assert.include(io.output, `Resumed the peering 'default' in ${namespace} for ops@box.`);
    assert.notProperty((await runner.get(kopfPeerings, "default", namespace))?.status ?? {}, "ops@box");
    await runner.waitForOutput("Resuming operations after the pause.");
    await runner.waitForOutput(handled("during"));
    assert.isAbove(runner.output.indexOf(handled("during")), runner.output.indexOf("Resuming operations"));
    assert.deepStrictEqual(calls, ["before", "during"]);
    await runner.stop();
    assert.strictEqual(runner.exitCode, 0);
  });

  it("follow namespace patterns into every existing namespace they match", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    const prefix = `pattern-${process.pid}-${Date.now().toString(36)}`;
    const names = [`${prefix}-a`, `${prefix}-b`];
    await using _cleanup = removing(cluster, names);
    await Effect.runPromise(
      Effect.provideContext(
        Applying.apply([
          ...PeeringCrds.definitions,
          ...names.flatMap((name) => [
            { apiVersion: "v1", kind: "Namespace", metadata: { name } },
            PeeringCrds.peeringObject("default", name),
          ]),
        ]),
        cluster.context,
      ),
    );
    const records = (namespace: string) =>
      Effect.runPromise(
        Effect.provideContext(
          Effect.flatMap(KubeApi, (api) => api.get(kopfPeerings, { name: "default", namespace })),
          cluster.context,
        ),
      ).then((body) => (body.status ?? {}) as Record<string, unknown>);
    const io = captured(cluster);
    const frozen = await Cli.main(
      ["freeze", "-n", `${prefix}-*`, "-P", "default", "-t", "60", "-i", "ops@box"],
      io,
    );
    assert.strictEqual(frozen.exitCode, 0, io.output);
    for (const name of names)
      assert.deepInclude((await records(name))["ops@box"], { priority: 100, lifetime: 60 });
    const resumed = await Cli.main(["resume", "-n", `${prefix}-*`, "-P", "default", "-i", "ops@box"], io);
    assert.strictEqual(resumed.exitCode, 0, io.output);
    for (const name of names) assert.deepStrictEqual(await records(name), {});

    const none = await Cli.main(
      ["freeze", "-n", `${prefix}-z*`, "-P", "default", "-t", "60", "-i", "ops@box"],
      io,
    );
    assert.strictEqual(none.exitCode, 1);
    assert.include(io.output, `No existing namespace matches ${prefix}-z*: nothing to freeze or resume.`);
  });

  it("exits 1 naming the missing peering resource", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    await Effect.runPromise(Effect.provideContext(withoutPeeringCrds, cluster.context));
    const io = captured(cluster);
    const result = await Cli.main(["freeze", "-A", "-P", "default", "-t", "60", "-i", "me@box"], io);
    assert.strictEqual(result.exitCode, 1);
    assert.include(io.output, "Cannot find the peering resource (clusterkopfpeerings).");
  });
});

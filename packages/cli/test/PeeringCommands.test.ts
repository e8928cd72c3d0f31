/**
 * `kopf freeze` and `kopf resume`: option parsing (flags, KOPF_FREEZE_* and KOPF_RESUME_* variables,
 * required peering and lifetime, -n/-A exclusivity, --dev's priority), and both commands end to
 * end on the cluster KOPF_TEST_CLUSTER names (the emulator by default; a real kube-apiserver in
 * `npm run test:real`) with the peering CRDs: freeze writes the presence record of the identity
 * with its priority and lifetime, resume removes it; without the CRDs, freeze fails naming them.
 * The tests share the cluster on the real tier, so each makes its own preconditions.
 */

import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Peering, PeeringCrds } from "@kopf/engines";
import { Clusters, KopfRunner } from "@kopf/testing";
import { Effect, Layer, Result, Schedule } from "effect";
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
    let out = "";
    const io = {
      stdout: (text: string) => {
        out += text;
      },
      stderr: (text: string) => {
        out += text;
      },
      kubeApi: Layer.succeedContext(cluster.context),
    };
    const frozen = await Cli.main(["freeze", "-A", "-P", "default", "-t", "600", "-i", "me@box"], io);
    assert.strictEqual(frozen.exitCode, 0, out);
    assert.include(out, "Frozen the peering 'default' cluster-wide for 600s as me@box (priority 100).");
    const record = (await runner.get(peerings, "default"))?.status?.["me@box"];
    assert.deepInclude(record, { priority: 100, lifetime: 600 });
    const resumed = await Cli.main(["resume", "-A", "-P", "default", "-i", "me@box"], io);
    assert.strictEqual(resumed.exitCode, 0, out);
    assert.isUndefined((await runner.get(peerings, "default"))?.status?.["me@box"]);
    await runner.stop();
  });

  it("exits 1 naming the missing peering resource", async () => {
    await using cluster = await Clusters.build(Clusters.selected());
    await Effect.runPromise(Effect.provideContext(withoutPeeringCrds, cluster.context));
    let err = "";
    const result = await Cli.main(["freeze", "-A", "-P", "default", "-t", "60", "-i", "me@box"], {
      stdout: () => undefined,
      stderr: (text) => {
        err += text;
      },
      kubeApi: Layer.succeedContext(cluster.context),
    });
    assert.strictEqual(result.exitCode, 1);
    assert.include(err, "Cannot find the peering resource (clusterkopfpeerings).");
  });
});

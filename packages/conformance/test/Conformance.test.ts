// Covers the whole harness end to end without the real API server: every sequence replayed on
// two independent emulators (over HTTPS, logged in from their kubeconfigs) must normalise to
// identical outcomes, so uids, resourceVersions, timestamps, generated names and continue tokens
// are all neutralised, and nothing in the sequences depends on the server instance.

import { ClusterTarget as Target } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Scope from "effect/Scope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Cluster from "../src/Cluster.ts";
import * as Conformance from "../src/Conformance.ts";
import * as Connection from "../src/Connection.ts";
import * as Sequences from "../src/sequences/index.ts";
import * as WebhookServer from "../src/WebhookServer.ts";

let left: Cluster.OpenCluster | undefined;
let right: Cluster.OpenCluster | undefined;
let results: ReadonlyArray<Conformance.Result> = [];
const scope = Scope.makeUnsafe();

beforeAll(async () => {
  left = await Cluster.open(Target.emulator);
  right = await Cluster.open(Target.emulator);
  results = await Effect.runPromise(
    Effect.gen(function* () {
      const a = yield* Connection.fromKubeconfig(left!.kubeconfig);
      const b = yield* Connection.fromKubeconfig(right!.kubeconfig);
      const webhook = yield* WebhookServer.start.pipe(Scope.provide(scope));
      const out = yield* Conformance.run({
        real: a,
        emulator: b,
        run: "t1",
        sequences: Sequences.all("t1", webhook),
        maxPollMs: 3_000,
      });
      a.close();
      b.close();
      return out;
    }),
  );
}, 120_000);

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void));
  await left?.close();
  await right?.close();
});

describe("the conformance harness on two emulators", () => {
  it("replays more than 200 interactions", () => {
    expect(results.length).toBeGreaterThanOrEqual(200);
  });

  it("finds no differences between two instances of the same server", () => {
    const differing = results
      .filter((r) => r.differences.length > 0)
      .map((r) => ({ interaction: r.interaction, differences: r.differences }));
    expect(differing).toEqual([]);
  });

  it("has unique interaction ids", () => {
    const ids = results.map((r) => r.interaction);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never loses a request to the network (status 0)", () => {
    expect(
      results.filter((r) => r.real.status === 0).map((r) => `${r.interaction}: ${String(r.real.body)}`),
    ).toEqual([]);
  });
});

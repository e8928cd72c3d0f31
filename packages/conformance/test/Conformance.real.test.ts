// The differential conformance suite (npm run conformance): every sequence is replayed against
// the real kube-apiserver (built and started by scripts/real-apiserver.sh) and the emulator over
// HTTPS; the normalised differences must be exactly those listed in emulator-deviations.json —
// an unlisted difference fails, and so does a listed deviation that no longer differs. A report
// with every interaction's outcomes goes to .reports/conformance.json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterTarget as Target } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Result from "effect/Result";
import * as Scope from "effect/Scope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Cluster from "../src/Cluster.ts";
import * as Conformance from "../src/Conformance.ts";
import * as Connection from "../src/Connection.ts";
import * as Deviations from "../src/Deviations.ts";
import * as Sequences from "../src/sequences/index.ts";
import * as WebhookServer from "../src/WebhookServer.ts";

const reports = join(Cluster.repositoryRoot, ".reports");
const tableFile = join(import.meta.dirname, "emulator-deviations.json");

// The real side defaults to the built kube-apiserver; KOPF_CONFORMANCE_AGAINST=kubeconfig:PATH
// compares the emulator with any other cluster instead.
const realTarget = (): Target.Target => {
  const parsed = Target.parse(process.env.KOPF_CONFORMANCE_AGAINST ?? "real");
  if (Result.isFailure(parsed)) throw parsed.failure;
  return parsed.success;
};

let real: Cluster.OpenCluster | undefined;
let emulator: Cluster.OpenCluster | undefined;
let results: ReadonlyArray<Conformance.Result> = [];
let version = "";
const scope = Scope.makeUnsafe();

beforeAll(async () => {
  real = await Cluster.open(realTarget());
  emulator = await Cluster.open(Target.emulator);
  const program = Effect.gen(function* () {
    const realConnection = yield* Connection.fromKubeconfig(real!.kubeconfig);
    const emulatorConnection = yield* Connection.fromKubeconfig(emulator!.kubeconfig);
    const info = yield* realConnection.request("GET", "/version");
    version = (JSON.parse(info.text) as { gitVersion?: string }).gitVersion ?? "unknown";
    const run = Math.random().toString(36).slice(2, 8);
    const out = yield* Conformance.run({
      real: realConnection,
      emulator: emulatorConnection,
      run,
      sequences: Sequences.all(run, yield* WebhookServer.start.pipe(Scope.provide(scope))),
    });
    realConnection.close();
    emulatorConnection.close();
    return out;
  });
  results = await Effect.runPromise(program);
}, 1_800_000);

afterAll(async () => {
  // The real control plane first: it is a separate process that must not outlive the run.
  const closing = await Promise.allSettled([
    real?.close(),
    emulator?.close(),
    Effect.runPromise(Scope.close(scope, Exit.void)),
  ]);
  const failed = closing.filter((c) => c.status === "rejected");
  if (failed.length > 0)
    throw new Error(`teardown failed: ${failed.map((f) => String(f.reason)).join("; ")}`);
}, 120_000);

describe(`the emulator conforms to the real API server`, () => {
  it("replays at least 200 interactions and differs only where the deviations table says", () => {
    const decoded = Deviations.decode(JSON.parse(readFileSync(tableFile, "utf8")));
    if (Result.isFailure(decoded)) throw decoded.failure;
    const verdict = Deviations.check(decoded.success, results);
    mkdirSync(reports, { recursive: true });
    writeFileSync(
      join(reports, "conformance.json"),
      `${JSON.stringify({ version, verdict, results }, null, 2)}\n`,
    );
    // A draft of the table for what differs now (reasons to be written by a person).
    const draft = results
      .filter((r) => r.differences.length > 0)
      .map((r) => ({
        interaction: r.interaction,
        paths: [...new Set(r.differences.map((d) => d.path))],
        reason: decoded.success.find((d) => d.interaction === r.interaction)?.reason ?? "TODO",
      }));
    writeFileSync(join(reports, "conformance-draft.json"), `${JSON.stringify(draft, null, 2)}\n`);
    console.log(
      `conformance against kube-apiserver ${version}: ${verdict.interactions} interactions compared, ` +
        `${verdict.matching} match, ${verdict.deviating} deviate as listed, ` +
        `${verdict.unlisted.length} unlisted differences, ${verdict.stale.length} stale entries, ${verdict.unknown.length} unknown entries`,
    );
    expect(verdict.interactions).toBeGreaterThanOrEqual(200);
    expect(
      verdict.unlisted.map(
        (u) =>
          `${u.interaction} ${u.difference.path}: real ${JSON.stringify(u.difference.real)} emulator ${JSON.stringify(u.difference.emulator)}`,
      ),
    ).toEqual([]);
    expect(verdict.stale.map((s) => `${s.interaction} ${s.path} no longer differs`)).toEqual([]);
    expect(verdict.unknown).toEqual([]);
  });
});

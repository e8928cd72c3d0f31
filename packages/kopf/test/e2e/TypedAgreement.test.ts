// Property tests, on the emulator in the default suite and on a real kube-apiserver in the real
// tier (its e2e project runs this file with KOPF_TEST_CLUSTER pointed at a fresh control plane):
// random bodies generated with fast-check from each test resource's CRD — valid ones and mutated
// ones — are accepted or rejected by the API server holding the generated CRD exactly as the
// Schema decodes them, and an accepted body is stored as the Schema encodes its decoded value
// (nulls dropped, defaults applied and unknown fields pruned the same way). Every mismatch fails
// the test with its body; the differences the guide lists are outside what the generator makes.
import { assert, describe, it } from "@effect/vitest";
import { Clusters } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Agreement from "../fixtures/agreement/Agreement.ts";
import { ALL } from "../fixtures/agreement/Schemas.ts";

const RUNS = Number(process.env.KOPF_AGREEMENT_RUNS ?? "100");
const SEED = Number(process.env.KOPF_AGREEMENT_SEED ?? "20261201");

describe("the generated CRDs and the Schemas agree", () => {
  it.live(
    `on ${RUNS} valid and ${RUNS} mutated bodies per resource (seed ${SEED})`,
    () =>
      Effect.gen(function* () {
        const { mismatches, accepted, rejected } = yield* Agreement.check(ALL, RUNS, SEED);
        assert.deepStrictEqual(mismatches.slice(0, 5), [], `${mismatches.length} mismatches`);
        assert.strictEqual(mismatches.length, 0);
        // Both verdicts occur: the generated bodies exercise acceptance and rejection.
        assert.isAbove(accepted, RUNS);
        assert.isAbove(rejected, RUNS / 2);
      }).pipe(Effect.provide(Clusters.selected())),
    300_000,
  );
});

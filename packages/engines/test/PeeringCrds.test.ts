/**
 * The peering CRDs (docs/behaviour/peering.md#the-peering-resources): the shipped YAML and the values applied through the API describe
 * the same two CRDs; applying is idempotent; peering objects of both kinds can be created then.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as PeeringCrds from "../src/PeeringCrds.ts";
import * as H from "./fixtures/Harness.ts";

const yaml = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../crds/peering.yaml"), "utf8");
const documents = yaml.split(/^---$/m).slice(1);

describe("peering CRDs", () => {
  it.each(PeeringCrds.definitions.map((d) => [d.metadata?.name, d] as const))(
    "the YAML has %s as the value",
    (_, definition) => {
      const spec = definition.spec as { scope: string; group: string; names: Record<string, string> };
      const document = documents.find((d) => d.includes(`name: ${definition.metadata?.name}`)) ?? "";
      for (const line of [
        `scope: ${spec.scope}`,
        `group: ${spec.group}`,
        `kind: ${spec.names.kind}`,
        `plural: ${spec.names.plural}`,
        `singular: ${spec.names.singular}`,
        "x-kubernetes-preserve-unknown-fields: true",
      ]) {
        assert.include(document, line);
      }
      assert.strictEqual(documents.length, PeeringCrds.definitions.length);
    },
  );

  it.effect("apply is idempotent; both kinds of peering objects can be created", () =>
    H.run(() =>
      Effect.gen(function* () {
        yield* PeeringCrds.apply;
        yield* PeeringCrds.apply;
        const api = yield* KubeApi;
        const cluster = Resource.make({
          group: "kopf.dev",
          version: "v1",
          plural: "clusterkopfpeerings",
          kind: "ClusterKopfPeering",
          namespaced: false,
        });
        const namespaced = Resource.make({
          group: "kopf.dev",
          version: "v1",
          plural: "kopfpeerings",
          kind: "KopfPeering",
          namespaced: true,
        });
        yield* Effect.orDie(api.create(cluster, PeeringCrds.peeringObject("default", null)));
        yield* Effect.orDie(
          api.create(namespaced, PeeringCrds.peeringObject("default", "ns1"), { namespace: "ns1" }),
        );
        const found = yield* Effect.orDie(api.get(namespaced, { namespace: "ns1", name: "default" }));
        assert.strictEqual(found.kind, "KopfPeering");
      }),
    ),
  );
});

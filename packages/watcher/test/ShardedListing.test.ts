// Who filters by a shard selector: the decision from the echoed shardInfo (a table), and the
// detection against the emulator with kube-apiserver's ShardedListAndWatch gate on and off.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Resource, ShardRange } from "@kopf/structs";
import { Clusters } from "@kopf/testing";
import { Effect } from "effect";
import * as ShardedListing from "../src/ShardedListing.ts";

const selector = ShardRange.selector([{ start: 0n, end: 1n << 63n }]);
const configmaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

describe("ShardedListing.decide", () => {
  it.each([
    [{ items: [], metadata: { shardInfo: { selector } } }, "ServerSide"],
    [{ items: [], metadata: {} }, "ClientSide"],
    [
      {
        items: [],
        metadata: {
          shardInfo: {
            selector: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
          },
        },
      },
      "ClientSide",
    ],
  ] as const)("%j ⇒ %s", (list, tag) => {
    assert.strictEqual(ShardedListing.decide(selector, list)._tag, tag);
  });
});

describe("ShardedListing.detect", () => {
  it.effect("server-side where the gate is on", () =>
    Effect.flatMap(KubeApi, (api) => ShardedListing.detect(api, configmaps, selector, "default")).pipe(
      Effect.map((filtering) => assert.deepStrictEqual(filtering, { _tag: "ServerSide" })),
      Effect.provide(Clusters.inProcess({ featureGates: { ShardedListAndWatch: true } })),
    ),
  );

  it.effect("client-side where the server ignores the selector", () =>
    Effect.flatMap(KubeApi, (api) => ShardedListing.detect(api, configmaps, selector, "default")).pipe(
      Effect.map((filtering) => assert.strictEqual(filtering._tag, "ClientSide")),
      Effect.provide(Clusters.inProcess()),
    ),
  );
});

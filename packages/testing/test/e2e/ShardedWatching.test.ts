/**
 * Watching shard ranges end to end on the cluster KOPF_TEST_CLUSTER names — the emulator with the
 * ShardedListAndWatch gate on in the default suite, kube-apiserver v1.36.3 with it on in
 * `npm run test:real` — in real time: the probe's verdict for a custom resource (whose lists
 * carry no shardInfo) agrees with the echo's verdict for ConfigMaps; a watcher of the low half
 * of the hash space sends the selector exactly when the server applies it, and emits exactly the
 * objects of its range, listed before it starts and created while it runs. It tests @kopf/watcher
 * but lives here because it chooses its cluster with this kit, which sits above the watcher.
 */
import { KubeApi } from "@kopf/client";
import { type RawBody, Resource, ShardRange } from "@kopf/structs";
import { ListWatch, ShardedListing, Watcher } from "@kopf/watcher";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { describe, expect, it } from "vitest";
import { Applying, Clusters, KopfRunner } from "../../src/index.ts";

const LOW = [{ start: 0n, end: 1n << 63n }];
const SELECTOR = ShardRange.selector(LOW);
const run = Math.random().toString(36).slice(2, 7);
const NS = `shards-${run}`;
const GROUP = `shards${run}.kopf.dev`;
const gadgets = Resource.make({
  group: GROUP,
  version: "v1",
  plural: "gadgets",
  kind: "Gadget",
  namespaced: true,
});
const configmaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});
const crds = Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  namespaced: false,
});
const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });

const inLow = (object: RawBody) => ShardRange.contains(LOW, ShardRange.fnv1a64(object.metadata?.uid ?? ""));

describe("watching shard ranges on a cluster", () => {
  it("sends the selector only where the server applies it, and emits exactly the range's objects", async () => {
    await using cluster = await Clusters.build(
      Clusters.selected({
        emulator: () => Clusters.inProcess({ featureGates: { ShardedListAndWatch: true } }),
      }),
    );
    const program = Effect.gen(function* () {
      const api = yield* KubeApi;
      yield* Applying.apply([
        { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
        KopfRunner.customResourceDefinition({ plural: "gadgets", kind: "Gadget", group: GROUP }),
      ]);
      const create = (name: string) =>
        api.create(
          gadgets,
          { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name }, spec: {} },
          { namespace: NS },
        );

      const echoed = yield* ShardedListing.detect(api, configmaps, SELECTOR, NS);
      const probed = yield* ShardedListing.detect(api, gadgets, SELECTOR, NS);
      expect(probed._tag).toBe(echoed._tag);

      const before = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => `before-${i}`),
        create,
      );
      const sent: Array<string | undefined> = [];
      const port = ListWatch.fromKubeApi(api, gadgets, NS);
      const recording: ListWatch.ListWatch = {
        list: (request) => {
          if (request.limit !== 1) sent.push(request.shardSelector);
          return port.list(request);
        },
        watch: (request) => {
          sent.push(request.shardSelector);
          return port.watch(request);
        },
      };
      const seen: Array<Watcher.Item> = [];
      yield* Effect.forkScoped(
        Stream.runForEach(
          Watcher.fromListWatch(
            recording,
            { resource: `gadgets.v1.${GROUP}`, namespace: NS },
            { shards: LOW },
          ),
          (item) => Effect.sync(() => seen.push(item)),
        ),
      );
      const after = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => `after-${i}`),
        create,
      );
      const expected = [...before, ...after]
        .filter(inLow)
        .map((o) => o.metadata?.name)
        .sort();
      const emitted = () =>
        seen
          .flatMap((i) => (i._tag === "Event" && i.type !== "DELETED" ? [i.object.metadata?.name] : []))
          .sort();
      for (let i = 0; i < 200 && emitted().length < expected.length; i++) yield* Effect.sleep("50 millis");
      yield* Effect.sleep("300 millis");

      expect(emitted()).toEqual(expected);
      expect(seen.filter((i) => i._tag === "Problem")).toEqual([]);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(new Set(sent)).toEqual(new Set([echoed._tag === "ServerSide" ? SELECTOR : undefined]));
      yield* api.delete(namespaces, { name: NS }).pipe(Effect.ignore);
      yield* api.delete(crds, { name: `gadgets.${GROUP}` }).pipe(Effect.ignore);
    });
    await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(cluster.context)));
  }, 120_000);
});

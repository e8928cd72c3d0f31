// Covers Sweep on the in-process emulator: objects created after the snapshot are deleted — one
// held by a finalizer, one in a new namespace, a CRD with its objects, the namespace itself — and
// waited for; objects that existed before are left alone, also when changed; a second sweep finds
// nothing.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import type { Resource } from "@kopf/structs";
import { Applying, Clusters, KopfRunner } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Sweep from "../src/Sweep.ts";

const { configmaps, namespaces, customResourceDefinitions: crds } = KopfRunner;

const configmap = (name: string, namespace: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, ...extra },
  data: { a: "1" },
});

const exists = (resource: Resource.Resource, name: string, namespace?: string) =>
  Effect.flatMap(KubeApi, (api) => api.get(resource, { name, namespace })).pipe(
    Effect.as(true),
    Effect.catch(() => Effect.succeed(false)),
  );

describe("Sweep", () => {
  it.live("deletes what was created after the snapshot, and only that", () =>
    Effect.gen(function* () {
      yield* Applying.apply([configmap("old", "default")]);
      const before = yield* Sweep.snapshot;
      yield* Applying.apply([
        configmap("held", "default", { finalizers: ["kopf.zalando.org/KopfFinalizerMarker"] }),
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "scratch" } },
        configmap("inside", "scratch"),
        KopfRunner.kopfExampleCrd,
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "ex", namespace: "default" } },
        // The old object changes, but it is not new: it stays.
        configmap("old", "default", { labels: { touched: "yes" } }),
      ]);
      const swept = yield* Sweep.sweep(before);
      assert.deepStrictEqual(swept, {
        configmaps: 2,
        namespaces: 1,
        "kopfexamples.kopf.dev": 1,
        "customresourcedefinitions.apiextensions.k8s.io": 1,
      });
      assert.isFalse(yield* exists(configmaps, "held", "default"));
      assert.isFalse(yield* exists(configmaps, "inside", "scratch"));
      assert.isFalse(yield* exists(namespaces, "scratch"));
      assert.isFalse(yield* exists(crds, "kopfexamples.kopf.dev"));
      assert.isTrue(yield* exists(configmaps, "old", "default"));
      assert.isTrue(yield* exists(namespaces, "default"));
      assert.deepStrictEqual(yield* Sweep.sweep(before), {});
    }).pipe(Effect.provide(Clusters.inProcess())),
  );
});

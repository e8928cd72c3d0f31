/**
 * Applying.apply through the KubeApi (here the in-process emulator's): a CRD and an object of it
 * in one call (the CRD is waited for until served), a namespaced object without a namespace goes
 * to `default`, an existing object is merge-patched (fields kept, fields changed), cluster-scoped
 * objects stay cluster-scoped, and bad input fails naming the problem without writing anything.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import { Applying, Clusters, KopfRunner } from "../../src/index.ts";

const example = (spec: Record<string, unknown>, namespace?: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "ex1", ...(namespace === undefined ? {} : { namespace }), labels: { a: "1" } },
  spec,
});

const get = (namespace: string) =>
  Effect.flatMap(KubeApi, (api) => api.get(KopfRunner.kopfExamples, { name: "ex1", namespace }));

describe("Applying.apply", () => {
  it.effect("creates a CRD and an object of it in one call; the namespace defaults to default", () =>
    Effect.gen(function* () {
      yield* Applying.apply([KopfRunner.kopfExampleCrd, example({ field: "value" })]);
      const body = yield* get("default");
      assert.deepStrictEqual((body as { spec?: unknown }).spec, { field: "value" });
    }).pipe(Effect.provide(Clusters.inProcess())),
  );

  it.effect("merge-patches an object that exists: changed fields change, others stay", () =>
    Effect.gen(function* () {
      yield* Applying.apply([
        KopfRunner.kopfExampleCrd,
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } },
      ]);
      yield* Applying.apply([example({ field: "value", kept: true }, "ns1")]);
      const first = yield* get("ns1");
      yield* Applying.apply([example({ field: "changed" }, "ns1")]);
      const second = yield* get("ns1");
      assert.strictEqual(second.metadata?.uid, first.metadata?.uid);
      assert.deepStrictEqual((second as { spec?: unknown }).spec, { field: "changed", kept: true });
      // Applying the CRD again is fine too.
      yield* Applying.apply([KopfRunner.kopfExampleCrd]);
    }).pipe(Effect.provide(Clusters.inProcess())),
  );

  it.effect("bad input fails naming the problem, and writes nothing", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
        ["a string", /not a Kubernetes object/],
        [{ apiVersion: "v1", kind: "ConfigMap", metadata: {} }, /needs apiVersion, kind and metadata.name/],
        [{ kind: "ConfigMap", metadata: { name: "x" } }, /needs apiVersion, kind and metadata.name/],
      ];
      for (const [input, message] of cases) {
        const exit = yield* Effect.exit(Applying.apply([input]));
        assert.isTrue(Exit.isFailure(exit));
        if (Exit.isFailure(exit)) assert.match(String(exit.cause), message);
      }
      const maps = yield* Effect.flatMap(KubeApi, (api) =>
        api.list(
          { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true } as never,
          {
            namespace: "default",
          },
        ),
      );
      assert.deepStrictEqual(
        maps.items.map((m) => m.metadata?.name).filter((n) => n === "x"),
        [],
      );
    }).pipe(Effect.provide(Clusters.inProcess())),
  );

  it.effect("an unknown kind fails after waiting (20 s of virtual time), naming the kind", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        Effect.exit(
          Applying.apply([{ apiVersion: "nowhere.dev/v1", kind: "Ghost", metadata: { name: "g" } }]),
        ),
      );
      yield* TestClock.adjust("19 seconds");
      assert.isUndefined(fiber.pollUnsafe());
      yield* TestClock.adjust("2 seconds");
      const exit = yield* Fiber.join(fiber);
      assert.isTrue(Exit.isFailure(exit));
      if (Exit.isFailure(exit))
        assert.match(String(exit.cause), /no resource is served for nowhere.dev\/v1 Ghost/);
    }).pipe(Effect.provide(Clusters.inProcess())),
  );
});

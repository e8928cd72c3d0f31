// Covers the watch matrix (docs/behaviour/watching.md#orchestration): cells per resource × namespace with cluster-scoped resources
// and cluster-wide serving collapsed to null; the plan (stop obsolete, start missing); and the
// running matrix following resource and namespace changes, restarting watches that ended.

import { assert, describe, it } from "@effect/vitest";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as SubscriptionRef from "effect/SubscriptionRef";
import fc from "fast-check";
import * as WatchMatrix from "../src/WatchMatrix.ts";

const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const things = Resource.make({ group: "kopf.dev", version: "v1", plural: "things", namespaced: false });
const keys = (cells: ReadonlyArray<WatchMatrix.Cell>) => cells.map(WatchMatrix.keyOf).sort();
const settle = Effect.gen(function* () {
  for (let i = 0; i < 100; i++) yield* Effect.yieldNow;
});

describe("WatchMatrix.cells", () => {
  it.each([
    ["namespaced × namespaces", [kex], [null], ["kopfexamples.v1.kopf.dev@*"]],
    [
      "namespaced × two namespaces",
      [kex],
      ["ns1", "ns2"],
      ["kopfexamples.v1.kopf.dev@ns1", "kopfexamples.v1.kopf.dev@ns2"],
    ],
    ["cluster-scoped collapses to null", [things], ["ns1", "ns2"], ["things.v1.kopf.dev@*"]],
    ["no namespaces, no cells", [kex, things], [], []],
    ["no resources, no cells", [], ["ns1"], []],
  ] as ReadonlyArray<
    [string, ReadonlyArray<Resource.Resource>, ReadonlyArray<string | null>, ReadonlyArray<string>]
  >)("%s", (_name, resources, namespaces, expected) => {
    assert.deepStrictEqual(keys(WatchMatrix.cells(resources, new Set(namespaces))), expected);
  });
});

describe("WatchMatrix.plan", () => {
  it("stops what is no longer wanted and starts what is missing", () => {
    const next = WatchMatrix.plan(
      new Set(["kopfexamples.v1.kopf.dev@ns1", "old.v1@*"]),
      WatchMatrix.cells([kex], new Set(["ns1", "ns2"])),
    );
    assert.deepStrictEqual(next.stop, ["old.v1@*"]);
    assert.deepStrictEqual(keys(next.start), ["kopfexamples.v1.kopf.dev@ns2"]);
  });

  it("applying a plan yields exactly the desired cells", () => {
    const names = fc.constantFrom("ns1", "ns2", "ns3", null);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 })),
        fc.array(names),
        (running, namespaces) => {
          const desired = WatchMatrix.cells([kex, things], new Set(namespaces));
          const next = WatchMatrix.plan(new Set(running), desired);
          const after = new Set(running.filter((k) => !next.stop.includes(k)));
          for (const cell of next.start) after.add(WatchMatrix.keyOf(cell));
          return [...after].sort().join() === keys(desired).join();
        },
      ),
    );
  });
});

describe("WatchMatrix.run", () => {
  it.effect("starts and stops watches as resources and namespaces change", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const resources = yield* SubscriptionRef.make<ReadonlyArray<Resource.Resource>>([kex]);
        const namespaces = yield* SubscriptionRef.make<ReadonlySet<string | null>>(new Set(["ns1"]));
        const active = new Set<string>();
        const started: Array<string> = [];
        const spawn = (cell: WatchMatrix.Cell) =>
          Effect.acquireRelease(
            Effect.sync(() => {
              active.add(WatchMatrix.keyOf(cell));
              started.push(WatchMatrix.keyOf(cell));
            }),
            () => Effect.sync(() => active.delete(WatchMatrix.keyOf(cell))),
          ).pipe(Effect.andThen(Effect.never), Effect.scoped);
        const fiber = yield* Effect.forkScoped(
          WatchMatrix.run(SubscriptionRef.changes(resources), SubscriptionRef.changes(namespaces), spawn),
        );
        yield* settle;
        assert.deepStrictEqual([...active].sort(), ["kopfexamples.v1.kopf.dev@ns1"]);

        yield* SubscriptionRef.set(namespaces, new Set(["ns1", "ns2"]));
        yield* settle;
        assert.deepStrictEqual([...active].sort(), [
          "kopfexamples.v1.kopf.dev@ns1",
          "kopfexamples.v1.kopf.dev@ns2",
        ]);

        yield* SubscriptionRef.set(resources, [kex, things]);
        yield* SubscriptionRef.set(namespaces, new Set(["ns2"]));
        yield* settle;
        assert.deepStrictEqual([...active].sort(), ["kopfexamples.v1.kopf.dev@ns2", "things.v1.kopf.dev@*"]);
        assert.strictEqual(started.filter((k) => k === "kopfexamples.v1.kopf.dev@ns2").length, 1);

        yield* Fiber.interrupt(fiber);
        assert.deepStrictEqual([...active], []);
      }),
    ),
  );

  it.effect("a watch that ended is started again on the next change", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const resources = yield* SubscriptionRef.make<ReadonlyArray<Resource.Resource>>([kex]);
        const namespaces = yield* SubscriptionRef.make<ReadonlySet<string | null>>(new Set(["ns1"]));
        let runs = 0;
        yield* Effect.forkScoped(
          WatchMatrix.run(SubscriptionRef.changes(resources), SubscriptionRef.changes(namespaces), () =>
            Effect.sync(() => (runs += 1)),
          ),
        );
        yield* settle;
        assert.strictEqual(runs, 1);
        yield* SubscriptionRef.set(namespaces, new Set(["ns1"]));
        yield* settle;
        assert.strictEqual(runs, 2);
      }),
    ),
  );
});

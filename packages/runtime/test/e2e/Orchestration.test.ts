// End to end (docs/behaviour/watching.md#discovery, docs/behaviour/watching.md#namespaces, docs/behaviour/watching.md#orchestration): the operator serves namespaces matching its patterns as they
// appear (and not the others), and starts serving a resource whose CRD is created after it
// started; cluster-wide operators serve every namespace.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Registry } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Cluster from "../fixtures/Cluster.ts";
import * as Harness from "../fixtures/Harness.ts";

const createIn = (ns: string, name: string, resource = Harness.resource, kind = "KopfExample") =>
  Effect.flatMap(KubeApi, (api) =>
    api.create(
      resource,
      {
        apiVersion: `${resource.group}/${resource.version}`,
        kind,
        metadata: { name, namespace: ns },
        spec: {},
      } as RawBody,
      { namespace: ns },
    ),
  ).pipe(Effect.orDie);

describe("orchestration", () => {
  it.effect("serves namespaces matching the patterns as they appear", () =>
    Harness.scenario(({ lines, log, ns, prefix }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn({ namespace, name }) {
          seen.push(`${namespace}/${name}`);
        });
        yield* Harness.start(registry, { lines, log }, { namespaces: [`${prefix}ns*,!${prefix}ns9`] });
        yield* Harness.namespace(`${prefix}ns2`);
        yield* Harness.namespace(`${prefix}ns9`);
        yield* Harness.namespace(`${prefix}other`);
        yield* Harness.settle(2);
        yield* createIn(ns, "a");
        yield* createIn(`${prefix}ns2`, "b");
        yield* createIn(`${prefix}ns9`, "c");
        yield* createIn(`${prefix}other`, "d");
        yield* Harness.settle(3);
        assert.deepStrictEqual(seen.sort(), [`${ns}/a`, `${prefix}ns2/b`]);
      }),
    ),
  );

  it.effect("cluster-wide operators serve every namespace; CRDs created later are served", () =>
    Harness.scenario(({ lines, log, ns, prefix }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        // A shared cluster may hold other tests' objects: only this test's namespaces count.
        const seen: Array<string> = [];
        const mine = (namespace: string | undefined) => namespace?.startsWith(prefix) === true;
        registry.on.create("kopfexamples.kopf.dev", function createFn({ namespace, name }) {
          if (mine(namespace)) seen.push(`kex ${namespace}/${name}`);
        });
        registry.on.create("widgets.example.com", function widgetFn({ namespace, name }) {
          if (mine(namespace)) seen.push(`widget ${namespace}/${name}`);
        });
        yield* Harness.start(registry, { lines, log }, { namespaces: undefined, clusterwide: true });
        yield* Harness.namespace(`${prefix}other`);
        yield* createIn(`${prefix}other`, "a");
        yield* Harness.settle(2);
        yield* Cluster.apply([Cluster.crd({ plural: "widgets", kind: "Widget", group: "example.com" })]);
        yield* Harness.settle(3);
        yield* createIn(
          ns,
          "w",
          Cluster.resource({ plural: "widgets", kind: "Widget", group: "example.com" }),
          "Widget",
        );
        yield* Harness.settle(3);
        assert.deepStrictEqual(seen.sort(), [`kex ${prefix}other/a`, `widget ${ns}/w`]);
      }),
    ),
  );
});

// End to end (spec §7.5–§7.7): the operator serves namespaces matching its patterns as they
// appear (and not the others), and starts serving a resource whose CRD is created after it
// started; cluster-wide operators serve every namespace.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Registry } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import { KubeEmulator } from "@kopf/testing";
import { Effect } from "effect";
import * as Cluster from "../fixtures/Cluster.ts";
import * as Harness from "../fixtures/Harness.ts";

const namespace = (name: string) =>
  Effect.flatMap(KubeEmulator, (emulator) =>
    emulator.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name } }]),
  ).pipe(Effect.orDie);

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
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn({ namespace: ns, name }) {
          seen.push(`${ns}/${name}`);
        });
        yield* Harness.start(registry, { lines, log }, { namespaces: ["ns*,!ns9"] });
        yield* namespace("ns2");
        yield* namespace("ns9");
        yield* namespace("other");
        yield* Harness.settle(2);
        yield* createIn("ns1", "a");
        yield* createIn("ns2", "b");
        yield* createIn("ns9", "c");
        yield* createIn("other", "d");
        yield* Harness.settle(3);
        assert.deepStrictEqual(seen.sort(), ["ns1/a", "ns2/b"]);
      }),
    ),
  );

  it.effect("cluster-wide operators serve every namespace; CRDs created later are served", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn({ namespace: ns, name }) {
          seen.push(`kex ${ns}/${name}`);
        });
        registry.on.create("widgets.example.com", function widgetFn({ namespace: ns, name }) {
          seen.push(`widget ${ns}/${name}`);
        });
        yield* Harness.start(registry, { lines, log }, { namespaces: undefined, clusterwide: true });
        yield* namespace("other");
        yield* createIn("other", "a");
        yield* Harness.settle(2);
        const emulator = yield* KubeEmulator;
        yield* emulator
          .apply([Cluster.crd({ plural: "widgets", kind: "Widget", group: "example.com" })])
          .pipe(Effect.orDie);
        yield* Harness.settle(3);
        yield* createIn(
          "ns1",
          "w",
          Cluster.resource({ plural: "widgets", kind: "Widget", group: "example.com" }),
          "Widget",
        );
        yield* Harness.settle(3);
        assert.deepStrictEqual(seen.sort(), ["kex other/a", "widget ns1/w"]);
      }),
    ),
  );
});

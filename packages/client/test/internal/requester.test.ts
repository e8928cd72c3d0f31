/**
 * The shapes of requests (metric labels and failure-digest kind) remembered per resource and kind
 * of request: they must equal what parsing each request's own path gives, whatever the names,
 * namespaces, subresources and watch flags.
 */
import { assert, describe, it } from "@effect/vitest";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import type { Location, Query } from "../../src/internal/paths.ts";
import { makeRequester, shapeOf } from "../../src/internal/requester.ts";
import { KubeTransport, type Method } from "../../src/KubeTransport.ts";
import * as Vault from "../../src/Vault.ts";

const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true });
const widgets = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });
const nodes = Resource.make({ group: "", version: "v1", plural: "nodes", namespaced: false });

const cases: ReadonlyArray<readonly [Method, Resource.Resource, Location, Query | undefined]> = [
  ["GET", pods, { namespace: "ns1", name: "p1" }, undefined],
  ["GET", pods, { namespace: "ns2", name: "other" }, undefined],
  ["GET", pods, { namespace: "ns1" }, { limit: 5 }],
  ["GET", pods, {}, { watch: true }],
  ["GET", pods, { namespace: "ns1" }, { watch: "true" }],
  ["GET", pods, { namespace: "ns1" }, { watch: false }],
  ["PATCH", widgets, { namespace: "ns1", name: "w1", subresource: "status" }, { fieldManager: "me" }],
  ["PATCH", widgets, { namespace: "ns1", name: "w2" }, undefined],
  ["POST", widgets, { namespace: "ns1" }, undefined],
  ["DELETE", widgets, { namespace: "ns1", name: "w3" }, undefined],
  ["PATCH", namespaces, { name: "ns1", subresource: "status" }, undefined],
  ["GET", namespaces, { name: "ns1" }, undefined],
  ["PUT", nodes, { name: "n1" }, undefined],
  ["GET", nodes, { namespace: "" }, undefined],
];

// Nothing is sent: only the addressing is asked.
const unused = KubeTransport.of({ request: () => Effect.die("unused"), stream: () => Effect.die("unused") });
const requester = Effect.map(Vault.make({}), (vault) => makeRequester(unused, vault, {}));

describe("requester.target", () => {
  it.effect("gives the path and the shape that parsing the path gives", () =>
    Effect.gen(function* () {
      const { target, pathOf } = yield* requester;
      // Twice over, so that the second round reads the remembered shapes.
      for (const round of [1, 2]) {
        for (const [method, resource, location, query] of cases) {
          const made = yield* target(method, resource, location, query);
          assert.strictEqual(made.path, yield* pathOf(resource, location, query));
          assert.deepStrictEqual(made.shape, shapeOf(method, made.path), `round ${round}: ${made.path}`);
        }
      }
    }),
  );

  it.effect("refuses what the API cannot serve, as pathOf does", () =>
    Effect.gen(function* () {
      const { target, pathOf } = yield* requester;
      const error = yield* Effect.flip(target("GET", nodes, { namespace: "ns1", name: "n1" }));
      assert.strictEqual(error.reason, "BadRequest");
      assert.strictEqual(
        error.message,
        (yield* Effect.flip(pathOf(nodes, { namespace: "ns1", name: "n1" }))).message,
      );
    }),
  );
});

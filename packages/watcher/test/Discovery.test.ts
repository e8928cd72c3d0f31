// Covers discovery into Resources: names, singular fallback to the lowercased kind, short names,
// categories, subresources from `plural/sub` entries (which are not resources), scope,
// preferred, verbs; and that a scan asks only for the needed groups.

import { assert, describe, it } from "@effect/vitest";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Discovery from "../src/Discovery.ts";
import * as FakeDiscovery from "./fixtures/FakeDiscovery.ts";

describe("Discovery.resourcesOf", () => {
  it("turns one group-version into resources", () => {
    const resources = Discovery.resourcesOf({
      group: "kopf.dev",
      version: "v1",
      preferred: false,
      resources: [
        FakeDiscovery.resource("kopfexamples", "KopfExample", {
          singularName: "kopfexample",
          shortNames: ["kex"],
          categories: ["all", "kopf"],
        }),
        FakeDiscovery.resource("kopfexamples/status", "KopfExample"),
        FakeDiscovery.resource("kopfexamples/scale", "Scale"),
        FakeDiscovery.resource("things", "Thing", { singularName: "", namespaced: false, verbs: ["get"] }),
      ],
    });
    assert.deepStrictEqual(resources, [
      Resource.make({
        group: "kopf.dev",
        version: "v1",
        plural: "kopfexamples",
        kind: "KopfExample",
        singular: "kopfexample",
        shortcuts: ["kex"],
        categories: ["all", "kopf"],
        subresources: ["status", "scale"],
        namespaced: true,
        preferred: false,
        verbs: ["list", "watch", "patch", "get"],
      }),
      Resource.make({
        group: "kopf.dev",
        version: "v1",
        plural: "things",
        kind: "Thing",
        singular: "thing",
        namespaced: false,
        preferred: false,
        verbs: ["get"],
      }),
    ]);
  });
});

describe("Discovery.scan", () => {
  it.effect("asks only for the needed groups, or for all", () =>
    Effect.gen(function* () {
      const fake = FakeDiscovery.make();
      const some = yield* Discovery.scan(fake, new Set(["apiextensions.k8s.io", ""]));
      assert.deepStrictEqual(some.map(Resource.toString), [
        "namespaces.v1",
        "pods.v1",
        "events.v1",
        "customresourcedefinitions.v1.apiextensions.k8s.io",
      ]);
      yield* Discovery.scan(fake, null);
      assert.deepStrictEqual(fake.calls, [["", "apiextensions.k8s.io"], "all"]);
    }),
  );
});

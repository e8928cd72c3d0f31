/**
 * Resource notations (docs/behaviour/registration.md#resource-selectors through the registration calls): strings (plain, dotted group,
 * dotted version), 2- and 3-part arrays, name objects, EVERYTHING, predicates (alone and with a
 * group), model classes (resolved by a resolver, rejected without one), bad notations; and the
 * de-duplication of selectors.
 */
import { assert, describe, it } from "@effect/vitest";
import { EVERYTHING, Resource, Selector } from "@kopf/structs";
import * as Result from "effect/Result";
import * as ResourceSpec from "../src/ResourceSpec.ts";

const selector = (spec: unknown, resolve?: ResourceSpec.ModelResolver) => {
  const result = ResourceSpec.toSelector(spec, resolve);
  if (Result.isFailure(result)) assert.fail(result.failure.message);
  return result.success;
};

const fields = (s: Selector.Selector) =>
  Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined && typeof v !== "function"));

const isPods = (r: Resource.Resource) => r.plural === "pods";

class V1Pod {
  apiVersion = "v1";
}
class Unknown {}

describe("notations", () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    ["a plain name", "kopfexamples", { anyName: "kopfexamples" }],
    ["a name with a group", "kopfexamples.kopf.dev", { group: "kopf.dev", anyName: "kopfexamples" }],
    [
      "a name with a version and group",
      "kex.v1.kopf.dev",
      { group: "kopf.dev", version: "v1", anyName: "kex" },
    ],
    [
      "a name with a beta version",
      "name1.v99beta99.group1",
      { group: "group1", version: "v99beta99", anyName: "name1" },
    ],
    [
      "a non-conventional version is a group",
      "name1.v1nonconventional",
      { group: "v1nonconventional", anyName: "name1" },
    ],
    [
      "[group/version, name]",
      ["kopf.dev/v1", "kopfexamples"],
      { group: "kopf.dev", version: "v1", anyName: "kopfexamples" },
    ],
    ["[v1, name]", ["v1", "pods"], { group: "", version: "v1", anyName: "pods" }],
    ["[group, name]", ["kopf.dev", "kopfexamples"], { group: "kopf.dev", anyName: "kopfexamples" }],
    [
      "[group, version, name]",
      ["kopf.dev", "v1", "kopfexamples"],
      { group: "kopf.dev", version: "v1", anyName: "kopfexamples" },
    ],
    [
      "an object with a kind",
      { group: "kopf.dev", version: "v1", kind: "KopfExample" },
      { group: "kopf.dev", version: "v1", kind: "KopfExample" },
    ],
    ["an object with a plural", { plural: "kopfexamples" }, { plural: "kopfexamples" }],
    ["an object with a category", { category: "all" }, { category: "all" }],
    [
      "an object with a shortcut and the core group",
      { group: "", shortcut: "po" },
      { group: "", shortcut: "po" },
    ],
    ["EVERYTHING", EVERYTHING, { anyName: EVERYTHING }],
  ])("%s", (_name, spec, expected) => {
    assert.deepStrictEqual(fields(selector(spec)), expected);
  });

  it("a predicate", () => {
    const s = selector(isPods);
    assert.strictEqual(s.fn, isPods);
  });

  it("a predicate with a group", () => {
    const s = selector({ group: "apps", predicate: isPods });
    assert.deepStrictEqual([s.group, s.fn], ["apps", isPods]);
  });

  it("a model class through the resolver", () => {
    const resolve: ResourceSpec.ModelResolver = (model) =>
      model === V1Pod ? { group: "", version: "v1", kind: "Pod" } : undefined;
    assert.deepStrictEqual(fields(selector(V1Pod, resolve)), { group: "", version: "v1", kind: "Pod" });
  });

  it.each([
    ["without a resolver", undefined],
    ["unknown to the resolver", () => undefined],
  ] as const)("a model class %s is rejected", (_name, resolve) => {
    const result = ResourceSpec.toSelector(Unknown, resolve);
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) {
      assert.strictEqual(result.failure.reason, "UnresolvedModel");
      assert.include(result.failure.message, "Unknown");
    }
  });

  it.each<[string, unknown]>([
    ["a number", 5],
    ["null", null],
    ["an empty array", []],
    ["an array with a number", ["v1", 5]],
    ["unknown object fields", { kinds: "Pod" }],
    ["a non-string name", { kind: 5 }],
    ["a non-function predicate", { group: "g", predicate: "x" }],
    ["a predicate with a name", { kind: "Pod", predicate: isPods }],
    ["two names", { kind: "Pod", plural: "pods" }],
    ["an empty string", ""],
  ])("rejects %s", (_name, spec) => {
    const result = ResourceSpec.toSelector(spec);
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) assert.strictEqual(result.failure.reason, "InvalidResource");
  });

  it("the selectors match the resources they name", () => {
    const kex = Resource.make({
      group: "kopf.dev",
      version: "v1",
      plural: "kopfexamples",
      kind: "KopfExample",
    });
    for (const spec of [
      "kopfexamples",
      "kopfexamples.kopf.dev",
      ["kopf.dev", "v1", "kopfexamples"],
      { kind: "KopfExample" },
    ]) {
      assert.isTrue(Selector.check(selector(spec), kex), JSON.stringify(spec));
    }
    assert.isFalse(Selector.check(selector("pods"), kex));
  });
});

describe("distinct", () => {
  it("drops equal selectors, keeps distinct predicates even when printed alike", () => {
    const a = selector("kopfexamples");
    const b = selector("kopfexamples");
    const c = selector("pods");
    const p1 = selector([(r: Resource.Resource) => r.plural === "x"][0]);
    const p2 = selector([(r: Resource.Resource) => r.plural === "y"][0]);
    assert.deepStrictEqual(ResourceSpec.distinct([a, b, c, p1, p2, p1]), [a, c, p1, p2]);
  });
});

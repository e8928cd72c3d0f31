// Covers the insights revision (docs/behaviour/watching.md#discovery): which purpose populates which set (watched,
// indexed, webhooks); full rescans replace, group rescans replace only that group; ambiguous
// specific selectors serve nothing (with core-v1 precedence, and EVERYTHING never ambiguous);
// unresolved selectors, non-watchable and non-patchable resources with Kopf's warning texts;
// the groups a scan needs.

import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import { Resource, Selector } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Insights from "../src/Insights.ts";

const VERBS = ["list", "watch", "patch"];
const sel = (...args: ReadonlyArray<Selector.Positional>) => Result.getOrThrow(Selector.parse(args));
const named = (names: Selector.SelectorNames) => Result.getOrThrow(Selector.parse([], names));
const res = (group: string, version: string, plural: string, verbs: ReadonlyArray<string> = VERBS) =>
  Resource.make({ group, version, plural, verbs });
const keys = (resources: ReadonlyArray<Resource.Resource>) => resources.map(Resource.toString);

type Purpose =
  | "event"
  | "daemon"
  | "timer"
  | "index"
  | "resume"
  | "create"
  | "update"
  | "delete"
  | "validate"
  | "mutate";
const WATCHING: ReadonlyArray<Purpose> = [
  "event",
  "daemon",
  "timer",
  "index",
  "resume",
  "create",
  "update",
  "delete",
];
const PATCHING: ReadonlyArray<Purpose> = ["daemon", "timer", "resume", "create", "update", "delete"];

/** The selector sets a registry with handlers of `purpose` on `selectors` would give. */
const setsFor = (purpose: Purpose, selectors: ReadonlyArray<Selector.Selector>): Insights.SelectorSets => ({
  webhooks: purpose === "validate" || purpose === "mutate" ? selectors : [],
  indexed: purpose === "index" ? selectors : [],
  watched: WATCHING.includes(purpose) ? selectors : [],
  patched: PATCHING.includes(purpose) ? selectors : [],
});

const field = (insights: Insights.Insights, which: "watched" | "indexed" | "webhooks") =>
  keys(insights[which]);

const cases: ReadonlyArray<[Purpose, "watched" | "indexed" | "webhooks"]> = [
  ["event", "watched"],
  ["daemon", "watched"],
  ["timer", "watched"],
  ["index", "watched"],
  ["index", "indexed"],
  ["resume", "watched"],
  ["create", "watched"],
  ["update", "watched"],
  ["delete", "watched"],
  ["validate", "webhooks"],
  ["mutate", "webhooks"],
];

describe("Insights.revise: populating and replacing", () => {
  const s1 = sel("group1", "version1", "plural1");
  const s2 = sel("group2", "version2", "plural2");
  const r1 = res("group1", "version1", "plural1");
  const r2 = res("group2", "version2", "plural2");

  it.each(cases)("%s handlers populate the %s set", (purpose, which) => {
    const sets = setsFor(purpose, [s1, s2]);
    const first = Insights.revise(Insights.empty, sets, null, [r1]).insights;
    assert.deepStrictEqual(field(first, which), ["plural1.version1.group1"]);
    const replaced = Insights.revise(first, sets, null, [r2]).insights;
    assert.deepStrictEqual(field(replaced, which), ["plural2.version2.group2"]);
    const existingGroup = Insights.revise(first, sets, "group1", [r2]).insights;
    assert.deepStrictEqual(field(existingGroup, which), ["plural2.version2.group2"]);
    const newGroup = Insights.revise(first, sets, "group2", [r2]).insights;
    assert.deepStrictEqual(field(newGroup, which), ["plural1.version1.group1", "plural2.version2.group2"]);
  });

  it.each(PATCHING)("%s resources are watched only", (purpose) => {
    const { insights } = Insights.revise(Insights.empty, setsFor(purpose, [s1]), null, [r1]);
    assert.strictEqual(insights.watched.length, 1);
    assert.strictEqual(insights.indexed.length, 0);
    assert.strictEqual(insights.webhooks.length, 0);
  });

  it.each(["validate", "mutate"] as const)("%s resources are webhook-only", (purpose) => {
    const { insights } = Insights.revise(Insights.empty, setsFor(purpose, [s1]), null, [r1]);
    assert.deepStrictEqual(
      [insights.watched.length, insights.indexed.length, insights.webhooks.length],
      [0, 0, 1],
    );
  });

  it("indexed resources are also watched", () => {
    const { insights } = Insights.revise(Insights.empty, setsFor("index", [s1]), null, [r1]);
    assert.deepStrictEqual(
      [insights.watched.length, insights.indexed.length, insights.webhooks.length],
      [1, 1, 0],
    );
  });
});

describe("Insights.revise: rules and warnings", () => {
  it.each(WATCHING)("%s: an ambiguous specific selector serves none of its resources", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [named({ plural: "plural" })]),
      null,
      [res("g1", "v1", "plural"), res("g2", "v2", "plural")],
    );
    assert.deepStrictEqual(insights.watched, []);
    assert.deepStrictEqual(insights.webhooks, []);
    assert.strictEqual(
      warnings[0],
      "Ambiguous resources will not be served (try specifying API groups): Selector(plural='plural') => [plural.v1.g1, plural.v2.g2]",
    );
  });

  it.each(WATCHING)("%s: core v1 overrides the ambiguity", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [named({ plural: "pods" })]),
      null,
      [res("", "v1", "pods"), res("metrics.k8s.io", "v1", "pods")],
    );
    assert.deepStrictEqual(keys(insights.watched), ["pods.v1"]);
    assert.deepStrictEqual(warnings, []);
  });

  it.each(WATCHING)("%s: EVERYTHING is never ambiguous", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [sel(Selector.EVERYTHING)]),
      null,
      [res("g1", "v1", "plural"), res("g2", "v2", "plural")],
    );
    assert.deepStrictEqual(keys(insights.watched), ["plural.v1.g1", "plural.v2.g2"]);
    assert.deepStrictEqual(warnings, []);
  });

  it.each(WATCHING)("%s: selectors matching nothing are unresolved", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [named({ plural: "plural3" })]),
      null,
      [res("group1", "version1", "plural1"), res("group2", "version2", "plural2")],
    );
    assert.deepStrictEqual(insights.watched, []);
    assert.deepStrictEqual(warnings, [
      "Unresolved resources cannot be served (try creating their CRDs): Selector(plural='plural3')",
    ]);
  });

  it.each(PATCHING)("%s: resources without watch/list are not served", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [sel("group1", "version1", "plural1")]),
      null,
      [res("group1", "version1", "plural1", [])],
    );
    assert.deepStrictEqual(insights.watched, []);
    assert.include(warnings, "Non-watchable resources will not be served: {plural1.version1.group1}");
  });

  it.each(PATCHING)("%s: resources without patch are not served to patching handlers", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [sel("group1", "version1", "plural1")]),
      null,
      [res("group1", "version1", "plural1", ["watch", "list"])],
    );
    assert.deepStrictEqual(insights.watched, []);
    assert.deepStrictEqual(warnings, [
      "Non-patchable resources will not be served: {plural1.version1.group1}",
    ]);
  });

  it.each(["event", "index"] as const)("%s: resources without patch are still watched", (purpose) => {
    const { insights, warnings } = Insights.revise(
      Insights.empty,
      setsFor(purpose, [sel("group1", "version1", "plural1")]),
      null,
      [res("group1", "version1", "plural1", ["watch", "list"])],
    );
    assert.deepStrictEqual(keys(insights.watched), ["plural1.version1.group1"]);
    assert.deepStrictEqual(warnings, []);
  });

  it("the same selector of several handlers is considered once", () => {
    const { warnings } = Insights.revise(
      Insights.empty,
      setsFor("create", [named({ plural: "nope" }), named({ plural: "nope" })]),
      null,
      [],
    );
    assert.deepStrictEqual(warnings, [
      "Unresolved resources cannot be served (try creating their CRDs): Selector(plural='nope')",
    ]);
  });
});

describe("Insights.groupsToScan", () => {
  it("covers the selectors' groups plus the extra ones", () => {
    const groups = Insights.groupsToScan(
      [sel("kopf.dev", "v1", "kopfexamples"), sel("v1", "pods")],
      ["apiextensions.k8s.io"],
    );
    assert.deepStrictEqual([...(groups ?? [])].sort(), ["", "apiextensions.k8s.io", "kopf.dev"]);
  });
  it("is every group when a selector has no group", () => {
    assert.isNull(Insights.groupsToScan([sel("kopf.dev", "v1", "kopfexamples"), named({ kind: "Pod" })]));
  });
});

describe("Insights.equals", () => {
  it("compares the served resources", () => {
    const a = Insights.revise(Insights.empty, setsFor("event", [sel(Selector.EVERYTHING)]), null, [
      res("g", "v", "p"),
    ]).insights;
    const b = Insights.revise(Insights.empty, setsFor("event", [sel(Selector.EVERYTHING)]), null, [
      res("g", "v", "p"),
    ]).insights;
    assert.isTrue(Insights.equals(a, b));
    assert.isFalse(Insights.equals(a, Insights.empty));
  });
});

describe("Insights.selectorSetsOf", () => {
  it("groups a registry's selectors by purpose, and resolves them", () => {
    const registry = Registry.make();
    registry.on.create(["kopf.dev", "v1", "kopfexamples"], function created() {});
    registry.on.event(["v1", "pods"], function seen() {});
    registry.on.index(["v1", "configmaps"], function indexed() {});
    registry.on.timer(["v1", "secrets"], { interval: 10 }, function ticked() {});
    registry.on.validate(["v1", "services"], function validated() {});
    const sets = Insights.selectorSetsOf(registry);
    const plurals = (selectors: ReadonlyArray<Selector.Selector>) => selectors.map((s) => s.anyName).sort();
    assert.deepStrictEqual(plurals(sets.webhooks), ["services"]);
    assert.deepStrictEqual(plurals(sets.indexed), ["configmaps"]);
    assert.deepStrictEqual(plurals(sets.watched), ["configmaps", "kopfexamples", "pods", "secrets"]);
    assert.deepStrictEqual(plurals(sets.patched), ["kopfexamples", "secrets"]);

    const resources = ["kopfexamples", "pods", "configmaps", "secrets", "services"].map((plural) =>
      res(plural === "kopfexamples" ? "kopf.dev" : "", "v1", plural),
    );
    const { insights, warnings } = Insights.revise(Insights.empty, sets, null, resources);
    assert.deepStrictEqual(keys(insights.watched), [
      "configmaps.v1",
      "kopfexamples.v1.kopf.dev",
      "pods.v1",
      "secrets.v1",
    ]);
    assert.deepStrictEqual(keys(insights.indexed), ["configmaps.v1"]);
    assert.deepStrictEqual(keys(insights.webhooks), ["services.v1"]);
    assert.deepStrictEqual(warnings, []);
  });
});

describe("Insights.resolve", () => {
  const pods = res("", "v1", "pods");
  const metricsPods = res("metrics.k8s.io", "v1", "pods");
  const a = res("a.example", "v1", "things");
  const b = res("b.example", "v1", "things");

  it("finds the one resource, with core-v1 precedence", () => {
    const found = Insights.resolve(named({ plural: "pods" }), [metricsPods, pods]);
    assert.deepStrictEqual(Result.map(found, Resource.toString), Result.succeed("pods.v1"));
    assert.deepStrictEqual(
      Result.map(Insights.resolve(Selector.NAMESPACES, [res("", "v1", "namespaces")]), Resource.toString),
      Result.succeed("namespaces.v1"),
    );
  });

  it.each([
    [
      "nothing matches",
      named({ plural: "nope" }),
      [pods],
      "Unresolved",
      "Unresolved resource (try creating its CRD): Selector(plural='nope')",
    ],
    [
      "several match",
      named({ plural: "things" }),
      [b, a],
      "Ambiguous",
      "Ambiguous resource (try specifying the API group): Selector(plural='things') => [things.v1.a.example, things.v1.b.example]",
    ],
  ] as const)("fails clearly when %s", (_name, selector, resources, reason, message) => {
    const found = Insights.resolve(selector, resources);
    assert.isTrue(Result.isFailure(found));
    if (Result.isFailure(found)) {
      assert.strictEqual(found.failure.reason, reason);
      assert.strictEqual(found.failure.message, message);
    }
  });
});

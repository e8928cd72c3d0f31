// Selector: parsing with Kopf's rules and errors (docs/behaviour/registration.md#resource-selectors), matching and selecting resources (docs/behaviour/registration.md#resource-selectors).
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import * as Resource from "../src/Resource.ts";
import * as Selector from "../src/Selector.ts";
import { failureOf } from "./support/failureOf.ts";

const EVERYTHING: Selector.Everything = Selector.EVERYTHING;

const ok = (
  positional: ReadonlyArray<Selector.Positional>,
  names: Selector.SelectorNames = {},
): Selector.Selector => Result.getOrThrow(Selector.parse(positional, names));

const fields = (s: Selector.Selector) =>
  Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as Partial<Selector.Selector>;

describe("parse: positional interpretation", () => {
  const fn: Selector.ResourcePredicate = () => true;
  it.each<[string, ReadonlyArray<Selector.Positional>, Partial<Selector.Selector>]>([
    ["a callable", [fn], { fn }],
    ["EVERYTHING", [EVERYTHING], { anyName: EVERYTHING }],
    ["a plain name", ["kopfexamples"], { anyName: "kopfexamples" }],
    ["name.group", ["name1.group1.example.com"], { group: "group1.example.com", anyName: "name1" }],
    [
      "name.version.group",
      ["name1.v1.group1.example.com"],
      { group: "group1.example.com", version: "v1", anyName: "name1" },
    ],
    [
      "name.betaversion.group",
      ["name1.v99beta99.group1"],
      { group: "group1", version: "v99beta99", anyName: "name1" },
    ],
    ["name.alphaversion", ["name1.v1alpha2"], { version: "v1alpha2", anyName: "name1" }],
    [
      "a non-conventional version as a group",
      ["name1.v1nonconventional"],
      { group: "v1nonconventional", anyName: "name1" },
    ],
    ["group/version, name", ["group/v1", "name1"], { group: "group", version: "v1", anyName: "name1" }],
    ["a nested group/version, name", ["a/b/v1", "name1"], { group: "a/b", version: "v1", anyName: "name1" }],
    ["v1, name", ["v1", "name1"], { group: "", version: "v1", anyName: "name1" }],
    ["group, name", ["group1", "name1"], { group: "group1", anyName: "name1" }],
    ["group, EVERYTHING", ["group1", EVERYTHING], { group: "group1", anyName: EVERYTHING }],
    [
      "group, version, name",
      ["group1", "version1", "name1"],
      { group: "group1", version: "version1", anyName: "name1" },
    ],
    ["core group, version, name", ["", "v1", "events"], { group: "", version: "v1", anyName: "events" }],
    ["group, null, name", ["group1", null, "name1"], { group: "group1", anyName: "name1" }],
    ["nothing but keywords (none here)", [undefined, "name1"], { anyName: "name1" }],
  ])("%s", (_, positional, expected) => {
    expect(fields(ok(positional))).toEqual(expected);
  });

  it("keeps keyword group/version next to a plain name, and lets positional parts override them", () => {
    expect(fields(ok(["name1"], { group: "g", version: "v" }))).toEqual({
      group: "g",
      version: "v",
      anyName: "name1",
    });
    expect(fields(ok(["name1.v1"], { group: "g" }))).toEqual({ group: "g", version: "v1", anyName: "name1" });
    expect(fields(ok(["name1.real"], { group: "g" }))).toEqual({ group: "real", anyName: "name1" });
  });

  it("allows group and version keywords next to a callable", () => {
    const fn: Selector.ResourcePredicate = () => true;
    expect(fields(ok([fn], { group: "g", version: "v" }))).toEqual({ group: "g", version: "v", fn });
  });
});

describe("parse: keyword names", () => {
  it.each(["kind", "plural", "singular", "shortcut", "category"] as const)("accepts %s alone", (key) => {
    expect(fields(ok([], { [key]: "name1" }))).toEqual({ [key]: "name1" });
  });

  const names = ["kind", "plural", "singular", "shortcut", "category", "anyName", "fn"] as const;
  const pairs = names.flatMap((a) => names.filter((b) => b !== a).map((b) => [a, b] as const));
  it("has 42 ordered pairs of distinct names", () => expect(pairs).toHaveLength(42));
  it.each(pairs)("rejects %s with %s as ambiguous", (a, b) => {
    const value = (k: string) => (k === "fn" ? () => true : `${k}1`);
    const failure = failureOf(Selector.parse([], { [a]: value(a), [b]: value(b) }));
    expect(failure.reason).toBe("Ambiguous");
    expect(failure.message.startsWith("Ambiguous resource specification with [")).toBe(true);
  });

  it.each(["kind", "plural", "singular", "shortcut", "category"] as const)(
    "rejects a positional name with %s",
    (key) => {
      const result = Selector.parse(["name1"], { [key]: "x" });
      expect(Result.isFailure(result) && result.failure.reason).toBe("Ambiguous");
    },
  );
});

describe("parse: errors", () => {
  const fn: Selector.ResourcePredicate = () => true;
  it.each<
    [string, ReadonlyArray<Selector.Positional>, Selector.SelectorNames, Selector.SelectorErrorReason, string]
  >([
    ["nothing", [], {}, "Unspecific", "Unspecific resource with no names."],
    ["only a group", [], { group: "g" }, "Unspecific", "Unspecific resource with no names."],
    [
      "a callable with others",
      [fn, "x"],
      {},
      "CallableWithOthers",
      "The callable filter cannot have any other selectors.",
    ],
    [
      "four positional args",
      ["a", "b", "c", "d"],
      {},
      "TooManyArguments",
      "Too many positional arguments. Max 3 positional args are accepted.",
    ],
    [
      "an empty kind",
      [],
      { kind: "" },
      "EmptyName",
      "Names must not be empty strings; either None or specific strings.",
    ],
    [
      "an empty positional name",
      ["group", ""],
      {},
      "EmptyName",
      "Names must not be empty strings; either None or specific strings.",
    ],
    [
      "an empty name",
      [""],
      {},
      "EmptyName",
      "Names must not be empty strings; either None or specific strings.",
    ],
    [
      "two names",
      [],
      { kind: "Pod", plural: "pods" },
      "Ambiguous",
      "Ambiguous resource specification with ['Pod', 'pods']",
    ],
    [
      "a name and a predicate",
      [],
      { kind: "Pod", fn },
      "Ambiguous",
      "Ambiguous resource specification with ['Pod', <function fn>]",
    ],
    [
      "a number",
      [5 as unknown as string],
      {},
      "InvalidArgument",
      "Positional selector #1 must be a string, EVERYTHING or a callable; got number.",
    ],
    [
      "a non-string keyword",
      [],
      { kind: 5 as unknown as string },
      "InvalidArgument",
      "The selector's kind must be a string; got number.",
    ],
  ])("rejects %s", (_, positional, names, reason, message) => {
    const failure = failureOf(Selector.parse(positional, names));
    expect(failure).toBeInstanceOf(Selector.SelectorError);
    expect(failure.reason).toBe(reason);
    expect(failure.message).toBe(message);
  });

  it("accepts the core group as an empty string", () => {
    expect(ok([], { group: "", kind: "Pod" }).group).toBe("");
  });
});

describe("toString", () => {
  it.each<[Selector.Selector, string]>([
    [ok([], { kind: "name1" }), "Selector(kind='name1')"],
    [ok(["g", "n"]), "Selector(group='g', any_name='n')"],
    [ok(["g", "v", "n"]), "Selector(group='g', version='v', any_name='n')"],
    [ok([EVERYTHING]), "Selector(any_name=EVERYTHING)"],
    [
      ok([
        function isMine() {
          return true;
        },
      ]),
      "Selector(fn=<function isMine>)",
    ],
    [ok(["it's"]), "Selector(any_name='it\\'s')"],
  ])("prints %s", (s, expected) => {
    expect(Selector.toString(s)).toBe(expected);
    expect(Selector.format(s)).toBe(expected);
  });
});

describe("isSpecific", () => {
  it.each<[string, Selector.Selector, boolean]>([
    ["kind", ok([], { kind: "K" }), true],
    ["plural", ok([], { plural: "p" }), true],
    ["singular", ok([], { singular: "s" }), true],
    ["shortcut", ok([], { shortcut: "s" }), true],
    ["a name", ok(["n"]), true],
    ["category", ok([], { category: "all" }), false],
    ["EVERYTHING", ok([EVERYTHING]), false],
    ["a predicate", ok([() => true]), false],
  ])("%s ⇒ %s", (_, s, expected) => {
    expect(Selector.isSpecific(s)).toBe(expected);
  });
});

describe("check", () => {
  const resource = Resource.make({
    group: "group1",
    version: "version1",
    plural: "plural1",
    singular: "singular1",
    kind: "kind1",
    shortcuts: ["shortcut1", "shortcut2"],
    categories: ["category1", "category2"],
    preferred: true,
    namespaced: true,
  });
  const named: ReadonlyArray<[string, Selector.SelectorNames]> = [
    ["kind", { kind: "kind1" }],
    ["plural", { plural: "plural1" }],
    ["singular", { singular: "singular1" }],
    ["shortcut", { shortcut: "shortcut2" }],
    ["category", { category: "category1" }],
    ["any name as kind", { anyName: "kind1" }],
    ["any name as plural", { anyName: "plural1" }],
    ["any name as singular", { anyName: "singular1" }],
    ["any name as shortcut", { anyName: "shortcut1" }],
  ];
  const scopes: ReadonlyArray<[string, Selector.SelectorNames]> = [
    ["no group/version", {}],
    ["the group", { group: "group1" }],
    ["the version", { version: "version1" }],
    ["group and version", { group: "group1", version: "version1" }],
  ];
  it.each(named.flatMap(([n, names]) => scopes.map(([s, scope]) => [n, s, { ...names, ...scope }] as const)))(
    "matches by %s with %s",
    (_, __, names) => {
      expect(Selector.check(ok([], names), resource)).toBe(true);
    },
  );
  it.each(
    named.flatMap(([n, names]) => [
      [n, "a wrong group", { ...names, group: "group9" }] as const,
      [n, "a wrong version", { ...names, version: "version9" }] as const,
    ]),
  )("does not match by %s with %s", (_, __, names) => {
    expect(Selector.check(ok([], names), resource)).toBe(false);
  });
  it.each<[string, Selector.SelectorNames]>([
    ["kind", { kind: "kind9" }],
    ["plural", { plural: "plural9" }],
    ["singular", { singular: "singular9" }],
    ["shortcut", { shortcut: "shortcut9" }],
    ["category", { category: "category9" }],
    ["any name", { anyName: "whatever" }],
  ])("does not match a wrong %s", (_, names) => {
    expect(Selector.check(ok([], names), resource)).toBe(false);
  });

  const nonPreferred = Resource.make({
    group: "group1",
    version: "version1",
    plural: "plural1",
    preferred: false,
  });
  it("matches non-preferred versions only when the version is given, or by predicate", () => {
    expect(Selector.check(ok([EVERYTHING]), nonPreferred)).toBe(false);
    expect(Selector.check(ok(["plural1"]), nonPreferred)).toBe(false);
    expect(Selector.check(ok(["group1", "version1", "plural1"]), nonPreferred)).toBe(true);
    expect(Selector.check(ok([() => true]), nonPreferred)).toBe(true);
    expect(Selector.check(ok([() => false]), nonPreferred)).toBe(false);
  });

  const events = [
    Resource.make({ group: "", version: "v1", plural: "events", kind: "Event" }),
    Resource.make({ group: "events.k8s.io", version: "v1", plural: "events", kind: "Event" }),
    Resource.make({ group: "events.k8s.io", version: "v1beta1", plural: "events", kind: "Event" }),
  ];
  it.each(events.map((r) => [Resource.toString(r), r] as const))(
    "excludes %s from EVERYTHING and predicates",
    (_, r) => {
      expect(Selector.check(ok([EVERYTHING]), r)).toBe(false);
      expect(Selector.check(ok([() => true]), r)).toBe(false);
      expect(Selector.isEvents(r)).toBe(true);
    },
  );
  it("matches core events when named", () => {
    const core = events[0]!;
    expect(Selector.check(ok(["events"]), core)).toBe(true);
    expect(Selector.check(ok(["v1", "events"]), core)).toBe(true);
    expect(Selector.check(ok(["", "v1", "events"]), core)).toBe(true);
    expect(Selector.check(Selector.EVENTS, core)).toBe(true);
  });
  it("matches other resources with EVERYTHING", () => {
    expect(Selector.check(ok([EVERYTHING]), resource)).toBe(true);
  });
});

describe("select", () => {
  const core = Resource.make({ group: "", version: "v1", plural: "pods", kind: "Pod", categories: ["all"] });
  const metrics = Resource.make({
    group: "metrics.k8s.io",
    version: "v1beta1",
    plural: "pods",
    kind: "PodMetrics",
    categories: ["all"],
  });
  const other = Resource.make({
    group: "group1",
    version: "v1",
    plural: "things",
    kind: "Thing",
    categories: ["all"],
  });

  it.each<[string, Selector.Selector, ReadonlyArray<Resource.Resource>]>([
    ["a specific name, preferring the core group", ok(["pods"]), [core]],
    ["a specific name in a non-core group", ok(["metrics.k8s.io", "pods"]), [metrics]],
    ["a category, keeping all groups", ok([], { category: "all" }), [core, metrics, other]],
    ["EVERYTHING, keeping all groups", ok([EVERYTHING]), [core, metrics, other]],
    ["an unknown name", ok(["nothing"]), []],
  ])("selects by %s", (_, s, expected) => {
    expect(Selector.select(s, [core, metrics, other])).toEqual(expected);
  });

  it("returns several matches for ambiguous specific selectors outside the core group", () => {
    const a = Resource.make({ group: "a.example.com", version: "v1", plural: "widgets" });
    const b = Resource.make({ group: "b.example.com", version: "v1", plural: "widgets" });
    expect(Selector.select(ok(["widgets"]), [a, b])).toEqual([a, b]);
  });

  it("drops duplicates of the same resource", () => {
    expect(Selector.select(ok(["pods"]), [core, { ...core }])).toEqual([core]);
  });
});

describe("predefined selectors", () => {
  it("match the framework's resources", () => {
    const crd = Resource.make({
      group: "apiextensions.k8s.io",
      version: "v1",
      plural: "customresourcedefinitions",
    });
    const ns = Resource.make({ group: "", version: "v1", plural: "namespaces" });
    expect(Selector.check(Selector.CRDS, crd)).toBe(true);
    expect(Selector.check(Selector.NAMESPACES, ns)).toBe(true);
    expect(Selector.toString(Selector.CLUSTER_PEERINGS_K)).toBe(
      "Selector(group='kopf.dev', version='v1', any_name='clusterkopfpeerings')",
    );
  });
});

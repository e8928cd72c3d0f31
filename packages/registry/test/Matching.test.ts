/**
 * Matching (docs/behaviour/causes.md#handler-selection, docs/behaviour/processing.md#cause-order, Kopf's tests/registries/test_matching_for_*.py,
 * test_requires_finalizer.py, test_resumes_mixed_in.py): catch-all handlers with labels,
 * annotations and `when`; reason relevance per decorator; field handlers with same/shorter/longer
 * fields and struct/scalar/none/empty transitions; registration order; de-duplication by
 * (fn, id); resume mixing by initial/deleted; finalizer requirement; the body-based matching of
 * watching/indexing/spawning handlers; webhook selection by hints, operations and subresources.
 */
import { assert, describe, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import * as fc from "fast-check";
import { ABSENT, type MetaFilter, PRESENT, Registry } from "../src/index.ts";
import * as Matching from "../src/Matching.ts";
import * as C from "./fixtures/causes.ts";

function some_fn() {}
const always = () => true;
const never = () => false;
type On = Registry.Registry["on"];

const fresh = () => Registry.make();

describe("one function as resume and create handler (stacked decorators)", () => {
  it("runs as the create handler on creation: de-duplication follows matching", () => {
    const registry = Registry.make();
    async function pod_in_sight() {}
    registry.on.resume(C.SPEC, pod_in_sight);
    registry.on.create(C.SPEC, pod_in_sight);
    const owned = registry.changingFor(C.RESOURCE);
    const created = Matching.changingHandlers(
      owned,
      C.changing({ body: {}, initial: false, reason: "create" }),
    );
    assert.deepStrictEqual(
      created.map((h) => [h.id, h.reason]),
      [["pod_in_sight", "create"]],
    );
    const resumed = Matching.changingHandlers(
      owned,
      C.changing({ body: {}, initial: true, reason: "create" }),
    );
    assert.lengthOf(resumed, 1);
  });
});

describe("catch-all changing handlers (reason undefined)", () => {
  // on.resume-like catch-alls are built as on.field/subhandler values; here: a resume handler
  // mixed into an initial cause behaves as a catch-all for handler reasons.
  const catchall = (options: Record<string, unknown>) => {
    const registry = fresh();
    registry.on.resume(C.SPEC, options, some_fn);
    return registry;
  };
  const initial = (body: RawBody) => C.changing({ body, initial: true, reason: "update" });

  it.each<[string, MetaFilter<unknown> | undefined, Record<string, string>, boolean]>([
    ["exact labels, with-label", { known: "value" }, { known: "value" }, true],
    ["exact labels, with-extra-label", { known: "value" }, { known: "value", extra: "other" }, true],
    ["exact labels, without-label", { known: "value" }, {}, false],
    ["exact labels, with-other-value", { known: "value" }, { known: "other" }, false],
    ["exact labels, with-other-label", { known: "value" }, { extra: "other" }, false],
    ["PRESENT, with-label", { known: PRESENT }, { known: "value" }, true],
    ["PRESENT, with-other-value", { known: PRESENT }, { known: "other" }, true],
    ["PRESENT, without-label", { known: PRESENT }, {}, false],
    ["PRESENT, with-other-label", { known: PRESENT }, { extra: "other" }, false],
    ["ABSENT, with-label", { known: ABSENT }, { known: "value" }, false],
    ["ABSENT, with-other-value", { known: ABSENT }, { known: "other" }, false],
    ["ABSENT, without-label", { known: ABSENT }, {}, true],
    ["ABSENT, with-other-label", { known: ABSENT }, { extra: "other" }, true],
    ["callback true, without-label", { known: always }, {}, true],
    ["callback true, with-other-value", { known: always }, { known: "other" }, true],
    ["callback false, with-label", { known: never }, { known: "value" }, false],
    ["no filter, without-label", undefined, {}, true],
    ["no filter, with-extra-label", undefined, { known: "value", extra: "other" }, true],
  ])("labels %s", (_name, labels, content, expected) => {
    const registry = catchall(labels === undefined ? {} : { labels });
    const cause = initial({ metadata: { labels: content } });
    assert.strictEqual(Matching.changingHandlers(registry.changing, cause).length > 0, expected);
  });

  it.each<[string, MetaFilter<unknown>, Record<string, string>, boolean]>([
    ["exact, with-annotation", { known: "value" }, { known: "value" }, true],
    ["exact, with-extra-annotation", { known: "value" }, { known: "value", extra: "other" }, true],
    ["exact, without-annotation", { known: "value" }, {}, false],
    ["exact, with-other-value", { known: "value" }, { known: "other" }, false],
    ["PRESENT, with-other-value", { known: PRESENT }, { known: "other" }, true],
    ["PRESENT, with-other-annotation", { known: PRESENT }, { extra: "other" }, false],
    ["ABSENT, with-annotation", { known: ABSENT }, { known: "value" }, false],
    ["ABSENT, without-annotation", { known: ABSENT }, {}, true],
    ["callback true", { known: always }, {}, true],
    ["callback false", { known: never }, { known: "value" }, false],
  ])("annotations %s", (_name, annotations, content, expected) => {
    const registry = catchall({ annotations });
    const cause = initial({ metadata: { annotations: content } });
    assert.strictEqual(Matching.changingHandlers(registry.changing, cause).length > 0, expected);
  });

  it.each<[string, Record<string, string>, Record<string, string>, boolean]>([
    ["with-label-annotation", { known: "value" }, { known: "value" }, true],
    [
      "with-extra-label-extra-annotation",
      { known: "value", extra: "o" },
      { known: "value", extra: "o" },
      true,
    ],
    ["label only", { known: "value" }, {}, false],
    ["annotation only", {}, { known: "value" }, false],
  ])("labels and annotations together: %s", (_name, labels, annotations, expected) => {
    const registry = catchall({ labels: { known: "value" }, annotations: { known: "value" } });
    const cause = initial({ metadata: { labels, annotations } });
    assert.strictEqual(Matching.changingHandlers(registry.changing, cause).length > 0, expected);
  });

  it.each([
    ["without-when", undefined, true],
    ["when on the body", ({ body }: { body: RawBody }) => body.spec?.name === "test", true],
    ["when mismatching the body", ({ body }: { body: RawBody }) => body.spec?.name !== "test", false],
    ["when always", always, true],
    ["when never", never, false],
  ] as const)("%s", (_name, when, expected) => {
    const registry = catchall(when === undefined ? {} : { when });
    const cause = initial({ spec: { name: "test" } });
    assert.strictEqual(Matching.changingHandlers(registry.changing, cause).length > 0, expected);
  });

  it("gives the when callback the filter context of the cause (whole essences, indices)", () => {
    const seen: Array<Record<string, unknown>> = [];
    const registry = fresh();
    registry.on.update(
      C.SPEC,
      {
        field: "known-field",
        when: (ctx) => {
          seen.push({ ...ctx });
          return true;
        },
      },
      some_fn,
    );
    const cause = C.withDiff({ reason: "update", indices: { byName: "the-index" } });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 1);
    const ctx = seen[0]!;
    assert.deepStrictEqual(ctx.old, { "known-field": "old" });
    assert.deepStrictEqual(ctx.new, { "known-field": "new" });
    assert.strictEqual(ctx.reason, "update");
    assert.strictEqual(ctx.byName, "the-index");
    assert.deepStrictEqual(ctx.labels, { known: "value" });
    assert.notProperty(ctx, "param");
    assert.notProperty(ctx, "retry");
    assert.notProperty(ctx, "initial");
  });
});

const DECORATORS = ["create", "update", "delete"] as const;
const REASON_OF = { create: "create", update: "update", delete: "delete" } as const;
const register = (
  on: On,
  decorator: (typeof DECORATORS)[number] | "field",
  options: Record<string, unknown>,
  fn = some_fn,
) =>
  decorator === "field"
    ? on.field(C.SPEC, options as { field: string }, fn)
    : (on[decorator] as On["create"])(C.SPEC, options, fn);

describe("relevant and irrelevant changing handlers", () => {
  const matching = DECORATORS.map((d) => [d, REASON_OF[d]] as const);
  const matchingWithField = [
    ...matching,
    ["field", "create"],
    ["field", "update"],
    ["field", "delete"],
  ] as const;
  const mismatching = DECORATORS.flatMap((d) =>
    DECORATORS.filter((other) => other !== d).map((other) => [d, REASON_OF[other]] as const),
  );
  const causes = { "empty diff": C.noDiff, "field diff": C.withDiff };

  it.each(matching.flatMap(([d, r]) => Object.keys(causes).map((c) => [d, r, c] as const)))(
    "on.%s fires on %s (%s) without a field",
    (decorator, reason, causeName) => {
      const registry = fresh();
      register(registry.on, decorator, {});
      const cause = causes[causeName as keyof typeof causes]({ reason });
      assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 1);
    },
  );

  it.each(matchingWithField)("on.%s with the changed field fires on %s", (decorator, reason) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "known-field" });
    assert.lengthOf(Matching.changingHandlers(registry.changing, C.withDiff({ reason })), 1);
  });

  it.each(matchingWithField.filter(([d]) => d === "update" || d === "field"))(
    "on.%s with an unchanged field is ignored on %s",
    (decorator, reason) => {
      const registry = fresh();
      register(registry.on, decorator, { field: "known-field" });
      assert.lengthOf(Matching.changingHandlers(registry.changing, C.noDiff({ reason })), 0);
    },
  );

  it.each([
    ["create", "create", 1],
    ["update", "update", 0],
    ["delete", "delete", 1],
    ["field", "create", 0],
    ["field", "update", 0],
    ["field", "delete", 0],
  ] as const)("on.%s with a present but unchanged field on %s: %s handlers", (decorator, reason, count) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "known-field" });
    const same = { "known-field": "same" };
    const cause = C.changing({ reason, old: same, new: same, body: C.knownBody(same), diff: [] });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), count);
  });

  it.each([
    [{ old: "old" }, 1],
    [{ old: "other" }, 0],
    [{ new: "new" }, 1],
    [{ new: PRESENT }, 1],
    [{ new: ABSENT }, 0],
    [{ old: ABSENT, new: PRESENT }, 0],
    [{ old: (v: unknown) => v === "old", new: (v: unknown) => v === "new" }, 1],
  ] as const)("on.update with old/new filters %j", (filters, count) => {
    const registry = fresh();
    registry.on.update(C.SPEC, { field: "known-field", ...filters }, some_fn);
    assert.lengthOf(Matching.changingHandlers(registry.changing, C.withDiff({ reason: "update" })), count);
  });

  it.each(matchingWithField)("on.%s with another field is ignored on %s", (decorator, reason) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "extra-field" });
    for (const cause of [C.noDiff({ reason }), C.withDiff({ reason })]) {
      assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 0);
    }
  });

  it.each(
    matching.flatMap(([d, r]) =>
      [
        [{ labels: { known: PRESENT } }, true],
        [{ labels: { extra: PRESENT } }, false],
        [{ annotations: { known: PRESENT } }, true],
        [{ annotations: { extra: PRESENT } }, false],
        [{ when: always }, true],
        [{ when: never }, false],
      ].map(([options, expected]) => [d, r, JSON.stringify(options), options, expected] as const),
    ),
  )("on.%s on %s with %s", (decorator, reason, _label, options, expected) => {
    const registry = fresh();
    register(registry.on, decorator, options as Record<string, unknown>);
    for (const cause of [C.noDiff({ reason }), C.withDiff({ reason })]) {
      assert.strictEqual(Matching.changingHandlers(registry.changing, cause).length, expected ? 1 : 0);
    }
  });

  it.each(
    mismatching.flatMap(([d, r]) =>
      [
        {},
        { labels: { known: PRESENT } },
        { labels: { extra: PRESENT } },
        { when: always },
        { when: never },
      ].map((options) => [d, r, JSON.stringify(options), options] as const),
    ),
  )("on.%s never fires on %s, whatever the filters (%s)", (decorator, reason, _label, options) => {
    const registry = fresh();
    register(registry.on, decorator, options);
    for (const cause of [C.noDiff({ reason }), C.withDiff({ reason })]) {
      assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 0);
    }
  });
});

describe("nested fields with shorter/longer diffs", () => {
  const nested = (reason: "create" | "update" | "delete", old: unknown, nw: unknown) =>
    C.withDiff({
      reason,
      old: { level1: { level2: old } } as never,
      new: { level1: { level2: nw } } as never,
      body: { level1: { level2: nw } } as never,
    });
  const cases = [
    ["create", "create"],
    ["update", "update"],
    ["delete", "delete"],
    ["field", "create"],
    ["field", "update"],
    ["field", "delete"],
  ] as const;

  it.each(cases)("on.%s: field same as diff (%s)", (decorator, reason) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "level1.level2" });
    assert.lengthOf(Matching.changingHandlers(registry.changing, nested(reason, "old", "new")), 1);
  });

  it.each(cases)("on.%s: field shorter than diff (%s)", (decorator, reason) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "level1" });
    assert.lengthOf(Matching.changingHandlers(registry.changing, nested(reason, "old", "new")), 1);
  });

  it.each(cases)("on.%s: field longer than diff, wrong field (%s)", (decorator, reason) => {
    const registry = fresh();
    register(registry.on, decorator, { field: "level1.level2.level3" });
    assert.lengthOf(Matching.changingHandlers(registry.changing, nested(reason, "old", "new")), 0);
  });

  const transitions = [
    ["struct2struct", { level3: "old" }, { level3: "new" }],
    ["struct2scalar", { level3: "old" }, "new"],
    ["scalar2struct", "old", { level3: "new" }],
    ["none2struct", {}, { level3: "new" }],
    ["struct2none", { level3: "old" }, {}],
    ["empty2struct", {}, { level3: "new" }],
    ["struct2empty", { level3: "old" }, {}],
  ] as const;

  it.each(cases.flatMap(([d, r]) => transitions.map(([name, old, nw]) => [d, r, name, old, nw] as const)))(
    "on.%s: field longer than diff, right field (%s, %s)",
    (decorator, reason, _name, old, nw) => {
      const registry = fresh();
      register(registry.on, decorator, { field: "level1.level2.level3" });
      assert.lengthOf(Matching.changingHandlers(registry.changing, nested(reason, old, nw)), 1);
    },
  );
});

describe("order and de-duplication", () => {
  it("keeps registration order, filtered (a)", () => {
    const registry = fresh();
    function some_fn_1() {}
    function some_fn_2() {}
    function some_fn_3() {}
    function some_fn_4() {}
    function some_fn_5() {}
    registry.on.create(C.SPEC, some_fn_1);
    registry.on.update(C.SPEC, some_fn_2);
    registry.on.create(C.SPEC, some_fn_3);
    registry.on.field(C.SPEC, { field: "filtered-out-field" }, some_fn_4);
    registry.on.field(C.SPEC, { field: "known-field" }, some_fn_5);
    const handlers = Matching.changingHandlers(registry.changing, C.withDiff({ reason: "create" }));
    assert.deepStrictEqual(
      handlers.map((h) => h.fn),
      [some_fn_1, some_fn_3, some_fn_5],
    );
  });

  it("keeps registration order, filtered (b)", () => {
    const registry = fresh();
    function some_fn_1() {}
    function some_fn_2() {}
    function some_fn_3() {}
    function some_fn_4() {}
    function some_fn_5() {}
    registry.on.field(C.SPEC, { field: "known-field" }, some_fn_1);
    registry.on.field(C.SPEC, { field: "filtered-out-field" }, some_fn_2);
    registry.on.create(C.SPEC, some_fn_3);
    registry.on.update(C.SPEC, some_fn_4);
    registry.on.create(C.SPEC, some_fn_5);
    const handlers = Matching.changingHandlers(registry.changing, C.withDiff({ reason: "create" }));
    assert.deepStrictEqual(
      handlers.map((h) => h.fn),
      [some_fn_1, some_fn_3, some_fn_5],
    );
  });

  it.each(DECORATORS)("on.%s: the same fn and id twice runs once", (decorator) => {
    const registry = fresh();
    register(registry.on, decorator, { id: "a" });
    register(registry.on, decorator, { id: "a" });
    const handlers = Matching.changingHandlers(
      registry.changing,
      C.withDiff({ reason: REASON_OF[decorator] }),
    );
    assert.deepStrictEqual(
      handlers.map((h) => h.id),
      ["a"],
    );
  });

  it.each(DECORATORS)("on.%s: different fns with the same id both run", (decorator) => {
    const registry = fresh();
    register(registry.on, decorator, { id: "a" }, function some_fn1() {});
    register(registry.on, decorator, { id: "a" }, function some_fn2() {});
    assert.lengthOf(
      Matching.changingHandlers(registry.changing, C.withDiff({ reason: REASON_OF[decorator] })),
      2,
    );
  });

  it.each(DECORATORS)("on.%s: the same fn with different ids both run", (decorator) => {
    const registry = fresh();
    register(registry.on, decorator, { id: "a" });
    register(registry.on, decorator, { id: "b" });
    assert.lengthOf(
      Matching.changingHandlers(registry.changing, C.withDiff({ reason: REASON_OF[decorator] })),
      2,
    );
  });

  it("a create+resume pair of one function runs once on an initial update", () => {
    const registry = fresh();
    registry.on.update(C.SPEC, { id: "x" }, some_fn);
    registry.on.resume(C.SPEC, { id: "x" }, some_fn);
    const cause = C.withDiff({ reason: "update", initial: true });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 1);
  });

  it("excluded ids are skipped", () => {
    const registry = fresh();
    registry.on.create(C.SPEC, { id: "a" }, some_fn);
    registry.on.create(C.SPEC, { id: "b" }, some_fn);
    const handlers = Matching.changingHandlers(registry.changing, C.withDiff(), new Set(["a"]));
    assert.deepStrictEqual(
      handlers.map((h) => h.id),
      ["b"],
    );
  });

  it("de-duplication keeps the first of every (fn, id) pair and the order (property)", () => {
    const fns = [function f0() {}, function f1() {}, function f2() {}];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2), fc.constantFrom("a", "b", "c")), { maxLength: 12 }),
        (pairs) => {
          const handlers = pairs.map(([f, id]) => ({ fn: fns[f]!, id }));
          const result = Matching.deduplicated(handlers);
          const keys = result.map((h) => `${h.fn.name}:${h.id}`);
          assert.strictEqual(new Set(keys).size, keys.length);
          assert.deepStrictEqual(keys, [...new Set(handlers.map((h) => `${h.fn.name}:${h.id}`))]);
        },
      ),
    );
  });
});

describe("resumes mixed in (docs/behaviour/causes.md#handler-selection)", () => {
  const deletions = {
    "not deleted": undefined,
    "deletionTimestamp null": null,
    deleted: "2020-01-01T00:00:00Z",
  };
  const body = (ts: string | null | undefined): RawBody => ({
    metadata: ts === undefined ? {} : { deletionTimestamp: ts },
  });

  it.each(
    (["create", "update", "delete", "resume"] as const).flatMap((reason) =>
      Object.entries(deletions).flatMap(([name, ts]) => [
        [reason, name, ts, false] as const,
        [reason, name, ts, true] as const,
      ]),
    ),
  )("non-initial cause %s (%s, deleted option %s): no resume handlers", (reason, _name, ts, deleted) => {
    const registry = fresh();
    registry.on.resume(C.SPEC, { deleted }, some_fn);
    const cause = C.changing({ reason, initial: false, body: body(ts) });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 0);
  });

  it.each(["create", "update", "resume"] as const)(
    "initial cause %s, not deleting: resume selected",
    (reason) => {
      const registry = fresh();
      registry.on.resume(C.SPEC, some_fn);
      const cause = C.changing({ reason, initial: true, body: body(undefined) });
      assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 1);
    },
  );

  it.each([
    [false, 0],
    [true, 1],
  ] as const)("initial delete with deletionTimestamp, deleted option %s", (deleted, count) => {
    const registry = fresh();
    registry.on.resume(C.SPEC, { deleted }, some_fn);
    const cause = C.changing({ reason: "delete", initial: true, body: body("2020-01-01T00:00:00Z") });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), count);
  });
});

describe("requiresFinalizer (docs/behaviour/processing.md#cause-order)", () => {
  const labelled = { metadata: { labels: { key: "value" } } };
  const cases: ReadonlyArray<[string, (on: On) => void, boolean]> = [
    ["optional on.delete", (on) => on.delete(C.SPEC, { optional: true }, some_fn), false],
    ["mandatory on.delete", (on) => on.delete(C.SPEC, some_fn), true],
    [
      "mandatory on.delete alongside on.create",
      (on) => {
        on.create(C.SPEC, some_fn);
        on.delete(C.SPEC, some_fn);
      },
      true,
    ],
    [
      "optional on.delete alongside on.create",
      (on) => {
        on.create(C.SPEC, some_fn);
        on.delete(C.SPEC, { optional: true }, some_fn);
      },
      false,
    ],
    ["only on.create", (on) => on.create(C.SPEC, some_fn), false],
    [
      "mandatory, labels matching exactly",
      (on) => on.delete(C.SPEC, { labels: { key: "value" } }, some_fn),
      true,
    ],
    ["mandatory, labels PRESENT", (on) => on.delete(C.SPEC, { labels: { key: PRESENT } }, some_fn), true],
    [
      "optional, labels matching",
      (on) => on.delete(C.SPEC, { optional: true, labels: { key: "value" } }, some_fn),
      false,
    ],
    [
      "mandatory, labels mismatching",
      (on) => on.delete(C.SPEC, { labels: { key: "othervalue" } }, some_fn),
      false,
    ],
    [
      "mandatory, other label PRESENT",
      (on) => on.delete(C.SPEC, { labels: { otherkey: PRESENT } }, some_fn),
      false,
    ],
    [
      "mandatory, annotations mismatching",
      (on) => on.delete(C.SPEC, { annotations: { key: "x" } }, some_fn),
      false,
    ],
    ["mandatory on.delete of another resource", (on) => on.delete("pods", some_fn), false],
  ];

  it.each(cases)("%s", (_name, setup, expected) => {
    const registry = fresh();
    setup(registry.on);
    const cause = C.changing({ reason: "create", body: labelled });
    assert.strictEqual(
      Matching.requiresFinalizer({ changing: { handlers: registry.changing, cause } }),
      expected,
    );
  });

  it("ignores the field-change step (prematch): a mandatory field on.delete requires it unchanged", () => {
    const registry = fresh();
    registry.on.delete(C.SPEC, { field: "spec.x" }, some_fn);
    const cause = C.changing({
      reason: "create",
      body: { spec: { x: 1 } },
      old: { spec: { x: 1 } },
      new: { spec: { x: 1 } },
    });
    assert.isTrue(Matching.requiresFinalizer({ changing: { handlers: registry.changing, cause } }));
  });

  it.each([
    ["a daemon", (on: On) => on.daemon(C.SPEC, some_fn), undefined, true],
    ["a timer", (on: On) => on.timer(C.SPEC, { interval: 1 }, some_fn), undefined, true],
    ["a daemon stopped forever", (on: On) => on.daemon(C.SPEC, { id: "d" }, some_fn), new Set(["d"]), false],
    [
      "a daemon filtered out",
      (on: On) => on.daemon(C.SPEC, { labels: { key: "x" } }, some_fn),
      undefined,
      false,
    ],
  ] as const)("spawning: %s", (_name, setup, excluded, expected) => {
    const registry = fresh();
    setup(registry.on);
    const spawning = {
      handlers: registry.spawning,
      cause: C.spawning(labelled),
      ...(excluded ? { excluded } : {}),
    };
    assert.strictEqual(Matching.requiresFinalizer({ spawning }), expected);
  });

  it("nothing requires it without causes", () => {
    assert.isFalse(Matching.requiresFinalizer({}));
  });
});

describe("prematchAny (stealth mode)", () => {
  it.each([
    [{ labels: { known: "value" } }, true],
    [{ labels: { known: "other" } }, false],
    [{ field: "known-field" }, true],
    [{ field: "absent-field" }, false],
  ] as const)("%j", (options, expected) => {
    const registry = fresh();
    registry.on.update(C.SPEC, options, some_fn);
    assert.strictEqual(
      Matching.prematchAny(
        registry.changing,
        C.noDiff({ body: C.knownBody({ "known-field": 1 }) as never, new: { "known-field": 1 } }),
      ),
      expected,
    );
  });
});

describe("watching, indexing and spawning handlers match the current body", () => {
  const body = C.knownBody({ spec: { field: "value" } });
  const selections = {
    event: (on: On, o: Record<string, unknown>) => on.event(C.SPEC, o, some_fn),
    index: (on: On, o: Record<string, unknown>) => on.index(C.SPEC, o, some_fn),
    daemon: (on: On, o: Record<string, unknown>) => on.daemon(C.SPEC, o, some_fn),
    timer: (on: On, o: Record<string, unknown>) => on.timer(C.SPEC, o, some_fn),
  };
  const select = (kind: keyof typeof selections, registry: Registry.Registry, b: RawBody) => {
    switch (kind) {
      case "event":
        return Matching.watchingHandlers(registry.watching, C.watching({ body: b }));
      case "index":
        return Matching.indexingHandlers(registry.indexing, C.indexing(b));
      default:
        return Matching.spawningHandlers(registry.spawning, C.spawning(b));
    }
  };
  const filters: ReadonlyArray<[string, Record<string, unknown>, boolean]> = [
    ["no filters", {}, true],
    ["labels exact", { labels: { known: "value" } }, true],
    ["labels mismatching", { labels: { known: "other" } }, false],
    ["annotations ABSENT", { annotations: { known: ABSENT } }, false],
    ["field present", { field: "spec.field" }, true],
    ["field absent", { field: "spec.other" }, false],
    ["field value equal", { field: "spec.field", value: "value" }, true],
    ["field value different", { field: "spec.field", value: "other" }, false],
    ["field value ABSENT", { field: "spec.other", value: ABSENT }, true],
    ["field value callback", { field: "spec.field", value: (v: unknown) => v === "value" }, true],
    ["when true", { when: always }, true],
    ["when false", { when: never }, false],
  ];

  it.each(Object.keys(selections).flatMap((k) => filters.map(([n, o, e]) => [k, n, o, e] as const)))(
    "%s with %s",
    (kind, _name, options, expected) => {
      const registry = fresh();
      selections[kind as keyof typeof selections](registry.on, options);
      assert.strictEqual(select(kind as keyof typeof selections, registry, body).length, expected ? 1 : 0);
    },
  );

  it("handlers of other resources never match", () => {
    const registry = fresh();
    registry.on.event("pods", some_fn);
    assert.lengthOf(Matching.watchingHandlers(registry.watching, C.watching({ body })), 0);
  });

  it("the field value of changing causes is checked on new, then old", () => {
    const registry = fresh();
    registry.on.create(C.SPEC, { field: "spec.x", value: "gone" }, some_fn);
    const cause = C.changing({ old: { spec: { x: "gone" } }, new: { spec: {} } });
    assert.lengthOf(Matching.changingHandlers(registry.changing, cause), 1);
  });
});

describe("webhook handlers", () => {
  const setup = () => {
    const registry = fresh();
    registry.on.validate(C.SPEC, { id: "v" }, some_fn);
    registry.on.mutate(C.SPEC, { id: "m" }, some_fn);
    registry.on.mutate(C.SPEC, { id: "md", operations: ["DELETE"] }, some_fn);
    return registry;
  };
  const ids = (cause: Parameters<typeof Matching.webhookHandlers>[1]) =>
    Matching.webhookHandlers(setup().webhooks, cause).map((h) => h.id);

  it.each([
    ["no hints", {}, ["v", "m", "md"]],
    ["validating hint", { reason: "validating" }, ["v"]],
    ["mutating hint", { reason: "mutating" }, ["m", "md"]],
    ["webhook id hint", { webhook: "m" }, ["m"]],
    ["both hints agreeing", { reason: "mutating", webhook: "m" }, ["m"]],
    ["both hints disagreeing", { reason: "validating", webhook: "m" }, []],
    ["DELETE skips mutating unless only for DELETE", { operation: "DELETE" }, ["v", "md"]],
  ] as const)("%s", (_name, overrides, expected) => {
    assert.deepStrictEqual(ids(C.webhook(overrides as never)), [...expected]);
  });

  it.each([
    ["*", "no", true],
    ["*", "sb", true],
    ["*", undefined, true],
    ["sb", "sb", true],
    ["sb", "no", false],
    ["sb", undefined, false],
    [undefined, undefined, true],
    [undefined, "no", false],
    [undefined, "sb", false],
  ] as const)("handler subresource %s × request %s", (handlerSub, requestSub, expected) => {
    const registry = fresh();
    registry.on.validate(C.SPEC, handlerSub === undefined ? {} : { subresource: handlerSub }, some_fn);
    const cause = C.webhook({ subresource: requestSub });
    assert.strictEqual(Matching.webhookHandlers(registry.webhooks, cause).length, expected ? 1 : 0);
  });
});

describe("selection invariants (properties)", () => {
  const reasons = fc.constantFrom("create", "update", "delete", "resume" as const);
  const decorators = fc.array(fc.constantFrom("create", "update", "delete", "resume", "field"), {
    maxLength: 8,
  });

  it("selects an ordered subset; resume handlers only for initial causes; prematch covers match", () => {
    fc.assert(
      fc.property(decorators, reasons, fc.boolean(), fc.boolean(), (kinds, reason, initial, deleting) => {
        const registry = fresh();
        kinds.forEach((kind, i) => {
          const options = { id: `h${i}` };
          if (kind === "field") registry.on.field(C.SPEC, { ...options, field: "known-field" }, some_fn);
          else (registry.on[kind] as On["create"])(C.SPEC, options, some_fn);
        });
        const body = C.knownBody({ "known-field": "new" });
        const cause = C.withDiff({
          reason,
          initial,
          body: deleting ? { ...body, metadata: { ...body.metadata, deletionTimestamp: "t" } } : body,
        });
        const selected = Matching.changingHandlers(registry.changing, cause);
        const positions = selected.map((h) => registry.changing.indexOf(h));
        assert.deepStrictEqual(
          positions,
          [...positions].sort((a, b) => a - b),
        );
        for (const h of selected) {
          assert.isTrue(h.reason === undefined || h.reason === reason);
          if (h.initial) assert.isTrue(initial && !deleting);
          assert.isTrue(Matching.prematch(h, cause));
        }
      }),
    );
  });
});

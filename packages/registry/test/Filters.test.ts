/**
 * Filters: label/annotation matching per key spec (exact, PRESENT, ABSENT, callbacks; docs/behaviour/registration.md#filters and the
 * docs/behaviour/causes.md#handler-selection label/annotation rows), field value matching over new-then-old values, field change
 * matching with old/new filters, the not_/all_/any_/none_ combinators (Kopf's
 * tests/test_filters.py), and properties relating them.
 */
import { assert, describe, it } from "@effect/vitest";
import * as fc from "fast-check";
import {
  ABSENT,
  all_,
  any_,
  type MetaFilter,
  matchesFieldChange,
  matchesFieldValue,
  matchesMeta,
  matchesValue,
  none_,
  not_,
  PRESENT,
  type ValueFilter,
} from "../src/Filters.ts";

const ctx = { marker: "ctx" } as const;
type Ctx = typeof ctx;
const getCtx = () => ctx;
const always = () => true;
const never = () => false;

describe("matchesMeta", () => {
  it.each<[string, MetaFilter<Ctx> | undefined, Record<string, string>, boolean]>([
    ["no filter", undefined, {}, true],
    ["empty filter", {}, { a: "b" }, true],
    ["exact value matches", { known: "value" }, { known: "value" }, true],
    ["exact value with extra keys", { known: "value" }, { known: "value", extra: "other" }, true],
    ["exact value, empty content", { known: "value" }, {}, false],
    ["exact value differs", { known: "value" }, { known: "other" }, false],
    ["exact value, only other keys", { known: "value" }, { extra: "other" }, false],
    ["PRESENT with a value", { known: PRESENT }, { known: "value" }, true],
    ["PRESENT with an empty string", { known: PRESENT }, { known: "" }, true],
    ["PRESENT when absent", { known: PRESENT }, { extra: "x" }, false],
    ["ABSENT when absent", { known: ABSENT }, { extra: "x" }, true],
    ["ABSENT when present", { known: ABSENT }, { known: "value" }, false],
    ["callback always", { known: always }, {}, true],
    ["callback never", { known: never }, { known: "value" }, false],
    ["all keys must pass", { a: "1", b: PRESENT }, { a: "1" }, false],
    ["all keys pass", { a: "1", b: PRESENT, c: ABSENT }, { a: "1", b: "" }, true],
  ])("%s", (_name, filter, content, expected) => {
    assert.strictEqual(matchesMeta(filter, content, getCtx), expected);
  });

  it("gives callbacks the value (undefined when absent) and the context", () => {
    const calls: Array<[unknown, unknown]> = [];
    const spy = (value: string | undefined, c: Ctx) => {
      calls.push([value, c]);
      return true;
    };
    matchesMeta({ a: spy, b: spy }, { a: "x" }, getCtx);
    assert.deepStrictEqual(calls, [
      ["x", ctx],
      [undefined, ctx],
    ]);
  });

  it("does not build the context without callbacks", () => {
    let built = 0;
    matchesMeta({ a: "x", b: PRESENT }, { a: "x", b: "y" }, () => {
      built++;
      return ctx;
    });
    assert.strictEqual(built, 0);
  });

  it("ignores inherited keys of the content", () => {
    const filter = Object.fromEntries([["toString", PRESENT]]) as MetaFilter<Ctx>;
    assert.isFalse(matchesMeta(filter, {}, getCtx));
  });
});

describe("matchesFieldValue", () => {
  it.each<[string, ValueFilter<Ctx> | undefined, ReadonlyArray<unknown>, boolean]>([
    ["unset, present in new", undefined, [1, undefined], true],
    ["unset, present in old only", undefined, [undefined, 1], true],
    ["unset, null counts as present", undefined, [null], true],
    ["unset, absent everywhere", undefined, [undefined, undefined], false],
    ["PRESENT, present in old only", PRESENT, [undefined, 1], true],
    ["PRESENT, absent", PRESENT, [undefined], false],
    ["ABSENT, absent in old only", ABSENT, [1, undefined], true],
    ["ABSENT, present everywhere", ABSENT, [1, 2], false],
    ["literal equals new", "x", ["x", "y"], true],
    ["literal equals old", "y", ["x", "y"], true],
    ["literal equals neither", "z", ["x", "y"], false],
    ["literal object compared deeply", { a: [1, 2] }, [{ a: [1, 2] }], true],
    ["literal object differs", { a: [1, 2] }, [{ a: [2, 1] }], false],
    ["callback true for one value", (v: unknown) => v === 2, [1, 2], true],
    ["callback false for all", (v: unknown) => v === 3, [1, 2], false],
  ])("%s", (_name, filter, values, expected) => {
    assert.strictEqual(matchesFieldValue(filter, values, getCtx), expected);
  });

  it("calls the callback on the new value first and stops there when it passes", () => {
    const seen: Array<unknown> = [];
    const spy = (v: unknown) => {
      seen.push(v);
      return true;
    };
    assert.isTrue(matchesFieldValue(spy, ["new", "old"], getCtx));
    assert.deepStrictEqual(seen, ["new"]);
  });

  it("treats a null filter from untyped callers as unset", () => {
    assert.isTrue(matchesFieldValue(null as never, [1], getCtx));
  });
});

describe("matchesValue (old/new filters)", () => {
  it.each<[string, ValueFilter<Ctx> | undefined, unknown, boolean]>([
    ["unset passes absent", undefined, undefined, true],
    ["ABSENT, absent", ABSENT, undefined, true],
    ["ABSENT, present", ABSENT, 1, false],
    ["PRESENT, null", PRESENT, null, true],
    ["PRESENT, absent", PRESENT, undefined, false],
    ["literal equal", 5, 5, true],
    ["literal differs", 5, 6, false],
    ["callback", (v: unknown) => v === "x", "x", true],
  ])("%s", (_name, filter, value, expected) => {
    assert.strictEqual(matchesValue(filter, value, getCtx), expected);
  });
});

describe("matchesFieldChange", () => {
  const filters = (
    needsChange: boolean,
    old?: ValueFilter<Ctx>,
    nw?: ValueFilter<Ctx>,
  ): { needsChange: boolean; old: ValueFilter<Ctx> | undefined; new: ValueFilter<Ctx> | undefined } => ({
    needsChange,
    old,
    new: nw,
  });

  it.each<[string, ReturnType<typeof filters>, unknown, unknown, boolean]>([
    ["needs change, changed", filters(true), 1, 2, true],
    ["needs change, added", filters(true), undefined, 2, true],
    ["needs change, removed", filters(true), 1, undefined, true],
    ["needs change, unchanged", filters(true), 1, 1, false],
    ["needs change, deeply unchanged", filters(true), { a: [1] }, { a: [1] }, false],
    ["needs change, both absent", filters(true), undefined, undefined, false],
    ["no change needed, unchanged", filters(false), 1, 1, true],
    ["old filter passes", filters(true, 1), 1, 2, true],
    ["old filter fails", filters(true, 5), 1, 2, false],
    ["new filter passes", filters(true, undefined, 2), 1, 2, true],
    ["new filter fails", filters(true, undefined, 5), 1, 2, false],
    ["old ABSENT on addition", filters(true, ABSENT, PRESENT), undefined, 2, true],
    ["old ABSENT on change", filters(true, ABSENT), 1, 2, false],
    ["new ABSENT on removal", filters(true, PRESENT, ABSENT), 1, undefined, true],
    [
      "callbacks on both",
      filters(
        true,
        (v) => v === 1,
        (v) => v === 2,
      ),
      1,
      2,
      true,
    ],
  ])("%s", (_name, f, old, nw, expected) => {
    assert.strictEqual(matchesFieldChange(f, old, nw, getCtx), expected);
  });
});

describe("combinators", () => {
  const t = () => true;
  const f = () => false;
  it.each([
    ["not_(true)", not_(t), false],
    ["not_(false)", not_(f), true],
    ["all_([])", all_([]), true],
    ["all_([true, true])", all_([t, t]), true],
    ["all_([true, false])", all_([t, f]), false],
    ["any_([])", any_([]), false],
    ["any_([false, true])", any_([f, t]), true],
    ["any_([false, false])", any_([f, f]), false],
    ["none_([])", none_([]), true],
    ["none_([false, false])", none_([f, f]), true],
    ["none_([false, true])", none_([f, t]), false],
  ] as const)("%s", (_name, fn, expected) => {
    assert.strictEqual(fn(), expected);
  });

  it("pass every argument through (usable for value callbacks and when)", () => {
    const isX = (value: unknown, c: Ctx) => value === "x" && c === ctx;
    assert.isTrue(all_([isX])("x", ctx));
    assert.isFalse(not_(isX)("x", ctx));
    assert.isTrue(any_([isX])("x", ctx));
    assert.isFalse(none_([isX])("x", ctx));
  });

  it("accept any iterable, consumed once at construction", () => {
    const fns = new Set([t, f]);
    const combined = any_(fns);
    fns.clear();
    assert.isTrue(combined());
  });

  it("relate as boolean algebra (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 6 }), (bools) => {
        const fns = bools.map((b) => () => b);
        assert.strictEqual(all_(fns)(), bools.every(Boolean));
        assert.strictEqual(any_(fns)(), bools.some(Boolean));
        assert.strictEqual(none_(fns)(), !any_(fns)());
        assert.strictEqual(not_(all_(fns))(), any_(fns.map((fn) => not_(fn)))());
      }),
    );
  });
});

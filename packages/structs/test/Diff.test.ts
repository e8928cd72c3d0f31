// Diff: calculation with scopes (docs/behaviour/causes.md#diffs, vectors docs/behaviour/causes.md#diffs) and reduction to a field (docs/behaviour/causes.md#field-diffs, vectors docs/behaviour/causes.md#field-diffs).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Diff from "../src/Diff.ts";
import { deepEqual } from "../src/Json.ts";

const d = (
  op: Diff.DiffOperation,
  field: ReadonlyArray<string>,
  old: unknown,
  neu: unknown,
): Diff.DiffItem => ({
  op,
  field,
  old,
  new: neu,
});

const scopes: ReadonlyArray<Diff.DiffScope> = ["full", "left", "right"];

describe("diff for any scope", () => {
  const X = { some: "value" };
  it.each<[string, unknown, unknown, Diff.Diff]>([
    ["null to a value", null, X, [d("add", [], null, X)]],
    ["undefined to a value", undefined, X, [d("add", [], null, X)]],
    ["a value to null", X, null, [d("remove", [], X, null)]],
    ["null to null", null, null, []],
    ["undefined to null", undefined, null, []],
    ["equal numbers", 100, 100, []],
    ["equal strings", "hello", "hello", []],
    ["equal lists", [100, 200, 300], [100, 200, 300], []],
    ["dicts equal in another key order", { a: 1, b: 2 }, { b: 2, a: 1 }, []],
    ["different numbers", 100, 200, [d("change", [], 100, 200)]],
    [
      "different lists",
      [100, 200, 300],
      [100, 666, 300],
      [d("change", [], [100, 200, 300], [100, 666, 300])],
    ],
    ["a changed key", { key: "old" }, { key: "new" }, [d("change", ["key"], "old", "new")]],
    [
      "a nested changed key",
      { main: { key: "old" } },
      { main: { key: "new" } },
      [d("change", ["main", "key"], "old", "new")],
    ],
    ["a type mismatch", { a: 1 }, [1], [d("change", [], { a: 1 }, [1])]],
    ["a key holding null becoming a value", { key: null }, { key: "v" }, [d("add", ["key"], null, "v")]],
  ])("%s", (_, a, b, expected) => {
    for (const scope of scopes) expect(Diff.diff(a, b, scope)).toEqual(expected);
  });
});

describe("diff with scopes", () => {
  it.each<[string, unknown, unknown, Diff.DiffScope, Diff.Diff]>([
    [
      "an added key, full",
      { hello: "world" },
      { hello: "world", key: "val" },
      "full",
      [d("add", ["key"], null, "val")],
    ],
    [
      "an added key, right",
      { hello: "world" },
      { hello: "world", key: "val" },
      "right",
      [d("add", ["key"], null, "val")],
    ],
    ["an added key, left", { hello: "world" }, { hello: "world", key: "val" }, "left", []],
    [
      "a removed key, full",
      { hello: "world", key: "val" },
      { hello: "world" },
      "full",
      [d("remove", ["key"], "val", null)],
    ],
    [
      "a removed key, left",
      { hello: "world", key: "val" },
      { hello: "world" },
      "left",
      [d("remove", ["key"], "val", null)],
    ],
    ["a removed key, right", { hello: "world", key: "val" }, { hello: "world" }, "right", []],
    [
      "labels added",
      { metadata: {} },
      { metadata: { labels: "LABEL" } },
      "full",
      [d("add", ["metadata", "labels"], null, "LABEL")],
    ],
    [
      "a size change",
      { spec: { size: "42G" } },
      { spec: { size: "76G" } },
      "full",
      [d("change", ["spec", "size"], "42G", "76G")],
    ],
    [
      "a list of items",
      { spec: { items: ["task1", "task2"] } },
      { spec: { items: ["task3", "task4"] } },
      "full",
      [d("change", ["spec", "items"], ["task1", "task2"], ["task3", "task4"])],
    ],
    [
      "mappings with removed, changed and added keys (sorted)",
      { a: 100, b: 200 },
      { b: 300, c: 400 },
      "full",
      [d("remove", ["a"], 100, null), d("change", ["b"], 200, 300), d("add", ["c"], null, 400)],
    ],
    ["an undefined-valued key counts as absent", { a: 1, b: undefined }, { a: 1 }, "full", []],
  ])("%s", (_, a, b, scope, expected) => {
    expect(Diff.diff(a, b, scope)).toEqual(expected);
  });

  it("defaults to the full scope", () => {
    expect(Diff.diff({ a: 1 }, { b: 2 })).toEqual([d("remove", ["a"], 1, null), d("add", ["b"], null, 2)]);
  });
});

describe("diff properties", () => {
  it("is empty for equal values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (a) => {
        expect(Diff.diff(a, structuredClone(a))).toEqual([]);
      }),
    );
  });

  it("is empty exactly when the values are deeply equal (full scope)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const equal = JSON.stringify(a) === JSON.stringify(b);
        if (equal) expect(Diff.diff(a, b)).toEqual([]);
        else if (Diff.diff(a, b).length === 0) expect(a).toEqual(b);
      }),
    );
  });
});

describe("one-sided scopes", () => {
  // The walk asks whether two whole values are equal before it looks into them, but not for two
  // objects under a one-sided scope (it would count the other side's keys at every level). The
  // diff must be the same as with the question asked everywhere: this reference asks it always.
  const isDict = (x: unknown): x is Record<string, unknown> =>
    typeof x === "object" && x !== null && !Array.isArray(x);
  const reference = (a: unknown, b: unknown, scope: Diff.DiffScope, path: Array<string> = []): Diff.Diff => {
    const absent = (x: unknown) => x === null || x === undefined;
    if (absent(a) && absent(b)) return [];
    if (deepEqual(a, b)) return [];
    if (absent(a)) return [d("add", path, null, b)];
    if (absent(b)) return [d("remove", path, a, null)];
    if (isDict(a) && isDict(b)) {
      const present = (x: Record<string, unknown>) => Object.keys(x).filter((k) => x[k] !== undefined);
      const keys =
        scope === "left"
          ? present(a)
          : scope === "right"
            ? present(b)
            : [...new Set([...present(a), ...present(b)])];
      return keys.sort().flatMap((key) => reference(a[key] ?? null, b[key] ?? null, scope, [...path, key]));
    }
    return [d("change", path, a, b)];
  };
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom(0, 1, "x", null),
      fc.array(tie("node"), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node")),
    ),
  })).node;

  it.each(["left", "right"] as const)("%s: the same as comparing whole values first", (scope) => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(Diff.diff(a, b, scope)).toEqual(reference(a, b, scope));
      }),
    );
    // A patch against a larger body, as the check after patching compares them.
    const patch = { metadata: { annotations: { k: "v" } }, status: { x: 1 } };
    const body = {
      metadata: { name: "n", annotations: { k: "v", o: "w" } },
      spec: {},
      status: { x: 1, y: 2 },
    };
    expect(Diff.diff(patch, body, "left")).toEqual([]);
    expect(Diff.diff({ ...patch, status: { x: 2 } }, body, "left")).toEqual([
      d("change", ["status", "x"], 2, 1),
    ]);
  });
});

describe("reduce", () => {
  // Kopf's tests/diffs/test_reduction.py.
  const D: Diff.Diff = [
    d("add", ["key1"], null, "new1"),
    d("change", ["key2"], "old2", "new2"),
    d("add", ["key2", "suba"], "olda", "newa"),
    d("remove", ["key2", "subb"], "oldb", "newb"),
    d("remove", ["key3"], "old3", null),
    d("change", ["key4"], { suba: "olda", subc: "oldc" }, { subb: "newb", subc: "newc" }),
  ];

  it.each<[ReadonlyArray<string>, Diff.Diff]>([
    [[], D],
    [
      ["key2"],
      [
        d("change", [], "old2", "new2"),
        d("add", ["suba"], "olda", "newa"),
        d("remove", ["subb"], "oldb", "newb"),
      ],
    ],
    [["key4", "subb"], [d("add", [], null, "newb")]],
    [["key4", "suba"], [d("remove", [], "olda", null)]],
    [["key4", "subc"], [d("change", [], "oldc", "newc")]],
    [["nonexistent-key"], []],
    [["key1", "x"], []],
    [["key2", "x"], []],
    [["key3", "x"], []],
    [["key4", "x"], []],
    [["key4", "suba", "x"], []],
    [["key4", "subb", "x"], []],
    [["key4", "subc", "x"], []],
    [["key4", "nonexistent-dict", "x"], []],
  ])("reduces to %j", (path, expected) => {
    expect(Diff.reduce(D, path)).toEqual(expected);
  });

  it("strips the path from an exactly matching item", () => {
    expect(Diff.reduce([d("change", ["key", "sub"], "old", "new")], ["key", "sub"])).toEqual([
      d("change", [], "old", "new"),
    ]);
  });

  it("narrows an ancestor addition to the field", () => {
    const added = [d("add", ["spec"], null, { size: "1G", other: 1 })];
    expect(Diff.reduce(added, ["spec", "size"])).toEqual([d("add", [], null, "1G")]);
  });

  it("agrees with diffing the resolved sub-values", () => {
    const value = fc.dictionary(
      fc.constantFrom("a", "b", "c"),
      fc.oneof(
        fc.integer({ min: 0, max: 2 }),
        fc.dictionary(fc.constantFrom("a", "b"), fc.integer({ min: 0, max: 2 })),
      ),
    );
    fc.assert(
      fc.property(value, value, fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 2 }), (a, b, path) => {
        const resolve = (x: unknown) =>
          path.reduce<unknown>(
            (acc, k) =>
              acc !== null && typeof acc === "object" && !Array.isArray(acc)
                ? (acc as Record<string, unknown>)[k]
                : undefined,
            x,
          );
        expect(Diff.equals(Diff.reduce(Diff.diff(a, b), path), Diff.diff(resolve(a), resolve(b)))).toBe(true);
      }),
    );
  });
});

describe("equals", () => {
  it.each<[Diff.Diff, Diff.Diff, boolean]>([
    [[], [], true],
    [[d("add", ["a"], null, 1)], [d("add", ["a"], null, 1)], true],
    [[d("add", ["a"], null, 1)], [d("add", ["a"], null, 2)], false],
    [[d("add", ["a"], null, 1)], [d("change", ["a"], null, 1)], false],
    [[d("add", ["a.b", "c"], null, 1)], [d("add", ["a", "b.c"], null, 1)], false],
    [[d("add", ["a"], null, 1)], [], false],
  ])("%j equals %j: %s", (a, b, expected) => {
    expect(Diff.equals(a, b)).toBe(expected);
  });
});

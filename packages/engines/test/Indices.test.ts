/**
 * Index and Store semantics (docs/behaviour/indexing.md): result interpretation (mappings, other values under
 * `null`, nothing keeps), replacing an object's contribution, empty stores disappearing,
 * structural comparison of keys and values, duplicates from several objects.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as Indices from "../src/Indices.ts";

describe("pairsOf", () => {
  it.each([
    [
      { a: 1, b: 2 },
      [
        ["a", 1],
        ["b", 2],
      ],
    ],
    [new Map<unknown, unknown>([[["ns", "n"], 1]]), [[["ns", "n"], 1]]],
    ["value", [[null, "value"]]],
    [0, [[null, 0]]],
    [false, [[null, false]]],
    [[1, 2], [[null, [1, 2]]]],
    [{ nested: { x: 1 } }, [["nested", { x: 1 }]]],
    [null, undefined],
    [undefined, undefined],
  ])("%j ⇒ %j", (result, expected) => {
    assert.deepStrictEqual(Indices.pairsOf(result), expected as never);
  });
});

describe("MutableIndex", () => {
  it("collects values of all objects per key; replacing drops keys no longer returned", () => {
    const index = new Indices.MutableIndex<unknown, unknown>();
    index.replace("o1", [
      ["ns1", "a"],
      ["ns2", "b"],
    ]);
    index.replace("o2", [["ns1", "a"]]);
    assert.strictEqual(index.size, 2);
    assert.deepStrictEqual([...(index.get("ns1") ?? [])], ["a", "a"]);
    assert.isTrue(index.get("ns1")?.has("a"));
    index.replace("o1", [["ns1", "c"]]);
    assert.isFalse(index.has("ns2"));
    assert.deepStrictEqual([...(index.get("ns1") ?? [])].sort(), ["a", "c"]);
    index.remove("o2");
    index.remove("o1");
    assert.strictEqual(index.size, 0);
    assert.deepStrictEqual([...index.keys()], []);
  });

  it("compares keys and values structurally", () => {
    const index = new Indices.MutableIndex<unknown, unknown>();
    index.replace("o1", [[["ns1", "name"], { b: 2, a: 1 }]]);
    assert.isTrue(index.has(["ns1", "name"]));
    assert.isTrue(index.get(["ns1", "name"])?.has({ a: 1, b: 2 }));
    assert.isFalse(index.get(["ns1", "name"])?.has({ a: 1 }));
    assert.isUndefined(index.get(["ns1"]));
  });

  it("property: after any sequence of replaces and removes, the index equals a model of it", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("replace" as const),
        object: fc.constantFrom("o1", "o2", "o3"),
        pairs: fc.array(fc.tuple(fc.constantFrom("k1", "k2", "k3"), fc.integer({ min: 0, max: 3 })), {
          maxLength: 3,
        }),
      }),
      fc.record({ kind: fc.constant("remove" as const), object: fc.constantFrom("o1", "o2", "o3") }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), (ops) => {
        const index = new Indices.MutableIndex<string, number>();
        const model = new Map<string, Map<string, number>>();
        for (const o of ops) {
          if (o.kind === "replace") {
            index.replace(o.object, o.pairs);
            model.set(o.object, new Map(o.pairs));
          } else {
            index.remove(o.object);
            model.delete(o.object);
          }
        }
        const expected = new Map<string, Array<number>>();
        for (const pairs of model.values())
          for (const [k, v] of pairs) expected.set(k, [...(expected.get(k) ?? []), v]);
        if (index.size !== expected.size) return false;
        for (const [k, values] of expected) {
          const got = [...(index.get(k) ?? [])].sort();
          if (JSON.stringify(got) !== JSON.stringify(values.sort())) return false;
        }
        return true;
      }),
    );
  });
});

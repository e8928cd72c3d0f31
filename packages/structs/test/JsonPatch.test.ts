// JsonPatch: pointer escaping, index-precise diffs (docs/behaviour/processing.md#json-patches shapes), applying patches with clear errors.
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../src/Json.ts";
import * as Json from "../src/Json.ts";
import * as JsonPatch from "../src/JsonPatch.ts";
import { failureOf } from "./support/failureOf.ts";

describe("escapePointer", () => {
  it.each([
    ["plain", "plain"],
    ["a/b", "a~1b"],
    ["~xyz/test", "~0xyz~1test"],
    ["a/b/~0c", "a~1b~1~00c"],
    ["x/y/~z", "x~1y~1~0z"],
    ["", ""],
  ])("escapes %j as %j", (key, expected) => {
    expect(JsonPatch.escapePointer(key)).toBe(expected);
    expect(JsonPatch.unescapePointer(expected)).toBe(key);
  });

  it("round-trips any key", () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        expect(JsonPatch.unescapePointer(JsonPatch.escapePointer(key))).toBe(key);
      }),
    );
  });

  it("builds pointers from paths", () => {
    expect(JsonPatch.pointer([])).toBe("");
    expect(JsonPatch.pointer(["metadata", "finalizers", 2])).toBe("/metadata/finalizers/2");
    expect(JsonPatch.pointer(["metadata", "annotations", "kopf.zalando.org/x"])).toBe(
      "/metadata/annotations/kopf.zalando.org~1x",
    );
  });
});

describe("diff", () => {
  it.each<[string, unknown, unknown, JsonPatch.JsonPatch]>([
    ["equal documents", { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, []],
    ["an added key", { abc: 456 }, { abc: 456, xyz: 123 }, [{ op: "add", path: "/xyz", value: 123 }]],
    ["a replaced key", { xyz: 456 }, { xyz: 123 }, [{ op: "replace", path: "/xyz", value: 123 }]],
    ["a removed key", { xyz: 456 }, {}, [{ op: "remove", path: "/xyz" }]],
    [
      "a nested addition",
      { xyz: { def: 456 } },
      { xyz: { def: 456, abc: 123 } },
      [{ op: "add", path: "/xyz/abc", value: 123 }],
    ],
    ["a new subtree", {}, { xyz: { abc: 123 } }, [{ op: "add", path: "/xyz", value: { abc: 123 } }]],
    [
      "removals, additions, then replacements",
      { existing: 1, toremove: 2 },
      { existing: 99, newkey: "hello" },
      [
        { op: "remove", path: "/toremove" },
        { op: "add", path: "/newkey", value: "hello" },
        { op: "replace", path: "/existing", value: 99 },
      ],
    ],
    [
      "an appended item",
      { x: ["a", "b"] },
      { x: ["a", "b", "fin"] },
      [{ op: "add", path: "/x/2", value: "fin" }],
    ],
    ["a removed middle item", { x: ["a", "fin", "b"] }, { x: ["a", "b"] }, [{ op: "remove", path: "/x/1" }]],
    ["a removed first item", { x: ["fin", "a"] }, { x: ["a"] }, [{ op: "remove", path: "/x/0" }]],
    [
      "an inserted middle item",
      { x: ["a", "b"] },
      { x: ["a", "new", "b"] },
      [{ op: "add", path: "/x/1", value: "new" }],
    ],
    [
      "a shortened and changed list",
      { xyz: [1, 2, 3] },
      { xyz: [4, 5] },
      [
        { op: "replace", path: "/xyz/0", value: 4 },
        { op: "replace", path: "/xyz/1", value: 5 },
        { op: "remove", path: "/xyz/2" },
      ],
    ],
    [
      "several removed items",
      { x: [1, 2, 3, 4, 5] },
      { x: [1, 5] },
      [
        { op: "remove", path: "/x/1" },
        { op: "remove", path: "/x/1" },
        { op: "remove", path: "/x/1" },
      ],
    ],
    [
      "a changed field of an object in a list",
      { c: [{ name: "a", image: "v1" }] },
      { c: [{ name: "a", image: "v2" }] },
      [{ op: "replace", path: "/c/0/image", value: "v2" }],
    ],
    ["a type change", { x: [1] }, { x: { a: 1 } }, [{ op: "replace", path: "/x", value: { a: 1 } }]],
    ["a whole document", 1, 2, [{ op: "replace", path: "", value: 2 }]],
    [
      "escaped keys",
      { "~xyz/test": { abc: 1, other: 2 } },
      { "~xyz/test": { other: 2 } },
      [{ op: "remove", path: "/~0xyz~1test/abc" }],
    ],
  ])("diffs %s", (_, from, to, expected) => {
    expect(JsonPatch.diff(from, to)).toEqual(expected);
  });

  it("does not share values with the target document", () => {
    const to = { a: { b: [1] } };
    const ops = JsonPatch.diff({}, to);
    to.a.b.push(2);
    expect(ops).toEqual([{ op: "add", path: "/a", value: { b: [1] } }]);
  });

  it("produces operations that turn the source into the target", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const applied = JsonPatch.apply(a, JsonPatch.diff(a, b));
        expect(Result.getOrThrow(applied)).toEqual(b);
      }),
    );
  });

  it("produces list operations that turn the source into the target", () => {
    const list = fc.array(fc.constantFrom("a", "b", "c", "fin"), { maxLength: 6 });
    fc.assert(
      fc.property(list, list, (a, b) => {
        const applied = JsonPatch.apply({ x: a }, JsonPatch.diff({ x: a }, { x: b }));
        expect(Result.getOrThrow(applied)).toEqual({ x: b });
      }),
    );
  });

  it("gives the same operations for a target that shares parts with the source", () => {
    // A target made from the source with some values replaced keeps the rest as the same
    // objects (as the copy for scoped patch functions does): the diff must not depend on that.
    const dict = fc.dictionary(fc.constantFrom("a", "b", "c/d", "e~f"), fc.jsonValue({ maxDepth: 3 }));
    fc.assert(
      fc.property(
        dict,
        dict,
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
        (a, changes, list) => {
          const source = { ...a, nested: a, list: [...list, a] };
          const target = {
            ...a,
            ...changes,
            nested: { ...a, ...changes },
            list: [...list.slice(1), a, changes],
          };
          expect(JsonPatch.diff(source, target)).toEqual(JsonPatch.diff(source, structuredClone(target)));
          expect(JsonPatch.diff(source, target)).toEqual(
            JsonPatch.diff(structuredClone(source), structuredClone(target)),
          );
        },
      ),
    );
  });

  it("orders objects' operations as a plain reference does: removed, added, changed, each sorted", () => {
    // The reference: the ordering written out with key sets and a full deep comparison first at
    // every level (what the diff did before it grouped the keys in one pass).
    const isDict = (x: unknown): x is Record<string, unknown> =>
      typeof x === "object" && x !== null && !Array.isArray(x);
    const present = (x: Record<string, unknown>) => Object.keys(x).filter((k) => x[k] !== undefined);
    const reference = (path: string, a: unknown, b: unknown, out: Array<JsonPatch.JsonPatchOp>): void => {
      if (Json.deepEqual(a, b)) return;
      if (!isDict(a) || !isDict(b)) {
        // Lists and scalars: as the diff itself makes them (not what this test is about).
        out.push(...JsonPatch.diff(a, b).map((op) => ({ ...op, path: path + op.path })));
        return;
      }
      const inA = new Set(present(a));
      const inB = new Set(present(b));
      const key = (k: string) => `${path}/${JsonPatch.escapePointer(k)}`;
      for (const k of [...inA].sort()) if (!inB.has(k)) out.push({ op: "remove", path: key(k) });
      for (const k of [...inB].sort())
        if (!inA.has(k)) out.push({ op: "add", path: key(k), value: b[k] as JsonValue });
      for (const k of [...inA].sort()) if (inB.has(k)) reference(key(k), a[k], b[k], out);
    };
    const keys = fc.constantFrom("a", "b", "c/d", "e~f", "z", "A");
    const value = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined));
    const dict = fc.dictionary(keys, fc.oneof(value, fc.dictionary(keys, value)));
    fc.assert(
      fc.property(dict, dict, (a, b) => {
        const expected: Array<JsonPatch.JsonPatchOp> = [];
        reference("", a, b, expected);
        expect(JsonPatch.diff(a, b)).toEqual(expected);
      }),
    );
  });

  it("is empty for equal documents", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (a) => {
        expect(JsonPatch.diff(a, structuredClone(a))).toEqual([]);
      }),
    );
  });
});

describe("apply", () => {
  it("applies operations to a copy", () => {
    const doc = { metadata: { finalizers: ["a"], resourceVersion: "1" } };
    const result = JsonPatch.apply(doc, [
      { op: "test", path: "/metadata/resourceVersion", value: "1" },
      { op: "add", path: "/metadata/finalizers/1", value: "b" },
    ]);
    expect(Result.getOrThrow(result)).toEqual({ metadata: { finalizers: ["a", "b"], resourceVersion: "1" } });
    expect(doc).toEqual({ metadata: { finalizers: ["a"], resourceVersion: "1" } });
  });

  it("replaces the whole document", () => {
    expect(Result.getOrThrow(JsonPatch.apply({ a: 1 }, [{ op: "replace", path: "", value: [1] }]))).toEqual([
      1,
    ]);
  });

  it.each<[string, JsonValue, JsonPatch.JsonPatch, JsonPatch.JsonPatchErrorReason, string]>([
    [
      "a failed test",
      { metadata: { resourceVersion: "2" } },
      [{ op: "test", path: "/metadata/resourceVersion", value: "1" }],
      "TestFailed",
      "JSON-patch test failed",
    ],
    [
      "a missing path",
      { a: 1 },
      [{ op: "remove", path: "/b" }],
      "PathUnresolvable",
      "JSON-patch cannot be applied",
    ],
    [
      "a missing parent",
      { a: 1 },
      [{ op: "add", path: "/b/c", value: 1 }],
      "PathUnresolvable",
      "JSON-patch cannot be applied",
    ],
    [
      "a bad list index",
      { a: [1] },
      [{ op: "add", path: "/a/5", value: 1 }],
      "PathUnresolvable",
      "JSON-patch cannot be applied",
    ],
    [
      "an unknown operation",
      { a: 1 },
      [{ op: "frobnicate", path: "/a" } as unknown as JsonPatch.JsonPatchOp],
      "InvalidOperation",
      "JSON-patch cannot be applied",
    ],
    [
      "a prototype write",
      {},
      [{ op: "add", path: "/__proto__/polluted", value: 1 }],
      "InvalidOperation",
      "JSON-patch cannot be applied",
    ],
  ])("fails clearly on %s", (_, doc, ops, reason, prefix) => {
    const failure = failureOf(JsonPatch.apply(doc, ops));
    expect(failure).toBeInstanceOf(JsonPatch.JsonPatchError);
    expect(failure.reason).toBe(reason);
    expect(failure.message.startsWith(prefix)).toBe(true);
    expect(failure.message).not.toContain("\n");
  });
});

describe("diff of lists around kept items", () => {
  it.each<[string, ReadonlyArray<unknown>, ReadonlyArray<unknown>, JsonPatch.JsonPatch]>([
    [
      "removals on both sides of a kept item",
      ["fin", "other", "fin"],
      ["other"],
      [
        { op: "remove", path: "/x/0" },
        { op: "remove", path: "/x/1" },
      ],
    ],
    [
      "an insertion and a removal",
      ["a", "b", "c"],
      ["z", "a", "c"],
      [
        { op: "add", path: "/x/0", value: "z" },
        { op: "remove", path: "/x/2" },
      ],
    ],
    [
      "a replacement between kept items",
      ["a", "b", "c"],
      ["a", "x", "c"],
      [{ op: "replace", path: "/x/1", value: "x" }],
    ],
    ["objects kept by value", [{ n: 1 }, { n: 2 }], [{ n: 2 }], [{ op: "remove", path: "/x/0" }]],
  ])("%s", (_, a, b, expected) => {
    expect(JsonPatch.diff({ x: a }, { x: b })).toEqual(expected);
  });

  it("handles long lists without aligning them item by item", () => {
    const a = Array.from({ length: 1500 }, (_, i) => i);
    const b = Array.from({ length: 1500 }, (_, i) => i + 1);
    const applied = JsonPatch.apply({ x: a }, JsonPatch.diff({ x: a }, { x: b }));
    expect(Result.getOrThrow(applied)).toEqual({ x: b });
  });
});

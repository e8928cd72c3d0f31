// FieldPath: parsing/formatting field specs, lenient resolution, immutable set and cascading remove (docs/behaviour/registration.md).
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as FieldPath from "../src/FieldPath.ts";
import { failureOf } from "./support/failureOf.ts";

const anyObject = fc.object();
const anyPath = fc.array(fc.string(), { minLength: 1, maxLength: 4 });
const anyValue = fc.jsonValue();

describe("parse", () => {
  it.each<[string, FieldPath.FieldSpec | null | undefined, FieldPath.FieldPath]>([
    ["null", null, []],
    ["undefined", undefined, []],
    ["an empty string", "", []],
    ["a single key", "spec", ["spec"]],
    ["a dotted string", "a.b", ["a", "b"]],
    ["a deeper dotted string", "spec.template.metadata", ["spec", "template", "metadata"]],
    ["a list", ["a", "b.c"], ["a", "b.c"]],
    ["an empty list", [], []],
  ])("parses %s", (_, spec, expected) => {
    expect(FieldPath.parse(spec)).toEqual(expected);
  });

  it("copies lists rather than sharing them", () => {
    const input = ["a", "b"];
    const parsed = FieldPath.parse(input);
    input.push("c");
    expect(parsed).toEqual(["a", "b"]);
  });

  it("round-trips through format for keys without dots", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9-]+$/), { minLength: 1 }), (path) => {
        expect(FieldPath.parse(FieldPath.format(path))).toEqual(path);
      }),
    );
  });
});

describe("decode", () => {
  it.each<[unknown, FieldPath.FieldPath]>([
    [null, []],
    [undefined, []],
    ["a.b", ["a", "b"]],
    [
      ["a", "b.c"],
      ["a", "b.c"],
    ],
  ])("decodes %j", (spec, expected) => {
    expect(Result.getOrThrow(FieldPath.decode(spec))).toEqual(expected);
  });

  it.each<[unknown, string]>([
    [{ a: 1 }, "A field must be a string or an array of strings; got an object."],
    [new Set(["a"]), "A field must be a string or an array of strings; got an object."],
    [5, "A field must be a string or an array of strings; got a number."],
    [["a", 1], "A field must be a string or an array of strings; got an array with non-string keys."],
  ])("rejects %j", (spec, message) => {
    const failure = failureOf(FieldPath.decode(spec));
    expect(failure.reason).toBe("InvalidSpec");
    expect(failure.message).toBe(message);
  });
});

describe("format", () => {
  it.each<[FieldPath.FieldPath, string]>([
    [[], ""],
    [["a"], "a"],
    [["a", "b"], "a.b"],
  ])("formats %j as %j", (path, expected) => {
    expect(FieldPath.format(path)).toBe(expected);
  });
});

describe("startsWith", () => {
  it.each<[FieldPath.FieldPath, FieldPath.FieldPath, boolean]>([
    [["a", "b"], [], true],
    [["a", "b"], ["a"], true],
    [["a", "b"], ["a", "b"], true],
    [["a", "b"], ["a", "b", "c"], false],
    [["a", "b"], ["b"], false],
  ])("%j starts with %j: %s", (path, prefix, expected) => {
    expect(FieldPath.startsWith(path, prefix)).toBe(expected);
  });
});

describe("resolve and has", () => {
  const obj = { spec: { size: "1G", empty: null, nested: { deep: 0 } }, list: [{ a: 1 }], text: "x" };
  it.each<[FieldPath.FieldPath, unknown, boolean]>([
    [[], obj, true],
    [["spec", "size"], "1G", true],
    [["spec", "nested", "deep"], 0, true],
    [["spec", "empty"], null, true],
    [["spec", "missing"], undefined, false],
    [["missing", "deeper"], undefined, false],
    [["text", "length"], undefined, false],
    [["list", "0"], undefined, false],
    [["spec", "empty", "x"], undefined, false],
    [["constructor"], undefined, false],
    [["spec", "toString"], undefined, false],
  ])("resolves %j to %j", (path, expected, present) => {
    expect(FieldPath.resolve(obj, path)).toEqual(expected);
    expect(FieldPath.has(obj, path)).toBe(present);
  });

  it.each([null, undefined, 1, "x", [1]])("treats a non-object root %j as having nothing", (root) => {
    expect(FieldPath.resolve(root, ["a"])).toBeUndefined();
  });
});

describe("set", () => {
  it.each<[string, object, FieldPath.FieldPath, unknown, object]>([
    ["into an empty object", {}, ["a", "b"], 1, { a: { b: 1 } }],
    ["next to siblings", { a: { x: 1 } }, ["a", "b"], 2, { a: { x: 1, b: 2 } }],
    ["over an existing value", { a: { b: 1 } }, ["a", "b"], { c: 3 }, { a: { b: { c: 3 } } }],
    ["through a non-object", { a: "text" }, ["a", "b"], 1, { a: { b: 1 } }],
    ["a null value", { a: 1 }, ["a"], null, { a: null }],
    ["at the root", { a: 1 }, [], { b: 2 }, { b: 2 }],
    ["at the root with a non-object", { a: 1 }, [], 5, { a: 1 }],
  ])("sets %s", (_, obj, path, value, expected) => {
    const before = structuredClone(obj);
    expect(FieldPath.set(obj, path, value)).toEqual(expected);
    expect(obj).toEqual(before);
  });

  it("shares untouched branches", () => {
    const obj = { keep: { x: 1 }, a: { b: 1 } };
    const result = FieldPath.set(obj, ["a", "b"], 2);
    expect(result.keep).toBe(obj.keep);
  });

  it("stores __proto__ as data", () => {
    const result = FieldPath.set({}, ["__proto__", "polluted"], true) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(FieldPath.resolve(result, ["__proto__", "polluted"])).toBe(true);
  });

  it("makes the value resolvable at the path", () => {
    fc.assert(
      fc.property(anyObject, anyPath, anyValue, (obj, path, value) => {
        expect(FieldPath.resolve(FieldPath.set(obj, path, value), path)).toEqual(value);
      }),
    );
  });
});

describe("remove", () => {
  // Kopf's tests/test_dicts.py (remove): cascading removal of emptied parents.
  it.each<[string, object, FieldPath.FieldPath, object]>([
    [
      "an existing key",
      { abc: { def: { hij: "val", hello: "world" } } },
      ["abc", "def", "hij"],
      { abc: { def: { hello: "world" } } },
    ],
    [
      "a missing key in an existing dict",
      { abc: { def: { hello: "world" } } },
      ["abc", "def", "hij"],
      { abc: { def: { hello: "world" } } },
    ],
    ["a missing key in a missing dict", {}, ["abc", "def", "hij"], {}],
    ["the last key, cascading up to the root", { abc: { def: { hij: "val" } } }, ["abc", "def", "hij"], {}],
    [
      "the last key, cascading up to a non-empty parent",
      { abc: { def: { hij: "val" }, hello: "world" } },
      ["abc", "def", "hij"],
      { abc: { hello: "world" } },
    ],
    ["a top-level key", { a: 1, b: 2 }, ["a"], { b: 2 }],
    ["a whole branch", { a: { b: { c: 1 } }, x: 1 }, ["a"], { x: 1 }],
    ["a key holding null", { a: { b: null } }, ["a", "b"], {}],
    ["under a non-object intermediate", { a: "text" }, ["a", "b"], { a: "text" }],
    ["an already empty parent when the key is missing", { a: {} }, ["a", "b"], {}],
    [
      "already empty parents deeper than the missing key",
      { a: { b: {} }, x: 1 },
      ["a", "b", "c", "d"],
      { x: 1 },
    ],
    ["nothing when a non-empty parent misses the key", { a: { y: 1 } }, ["a", "b", "c"], { a: { y: 1 } }],
    ["the root path", { a: 1 }, [], { a: 1 }],
  ])("removes %s", (_, obj, path, expected) => {
    const before = structuredClone(obj);
    expect(FieldPath.remove(obj, path)).toEqual(expected);
    expect(obj).toEqual(before);
  });

  it("returns the same object when there was nothing to remove or clean", () => {
    const obj = { a: { b: 1 } };
    expect(FieldPath.remove(obj, ["a", "c"])).toBe(obj);
  });

  it("makes the path absent and leaves no empty objects on it", () => {
    fc.assert(
      fc.property(anyObject, anyPath, anyValue, (obj, path, value) => {
        const result = FieldPath.remove(FieldPath.set(obj, path, value), path);
        expect(FieldPath.has(result, path)).toBe(false);
        for (let i = 1; i < path.length; i++) {
          const parent = FieldPath.resolve(result, path.slice(0, i));
          if (parent !== undefined && typeof parent === "object" && parent !== null) {
            expect(Object.keys(parent).length).toBeGreaterThan(0);
          }
        }
      }),
    );
  });
});

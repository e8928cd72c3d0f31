// Json: plain-object detection, deep equality and copies, and Python-compatible `pyDumps`.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepCopy, deepEqual, isObject, type JsonValue, pyDumps } from "../src/Json.ts";

describe("isObject", () => {
  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [Object.create(null), true],
    [[], false],
    [null, false],
    [undefined, false],
    ["x", false],
    [1, false],
    [new Date(0), false],
  ])("isObject(%j) is %s", (x, expected) => {
    expect(isObject(x)).toBe(expected);
  });
});

describe("deepEqual", () => {
  it.each([
    [1, 1, true],
    [1, 2, false],
    ["a", "a", true],
    [null, null, true],
    [null, undefined, false],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false],
    [[1], [1, 2], false],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2 }] } }, true],
    [{ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } }, false],
    [{}, [], false],
    [[], {}, false],
    [Number.NaN, Number.NaN, true],
    [{ toString: 1 }, {}, false],
    [{ a: undefined, b: 1 }, { b: 1, c: undefined }, true],
    [{ a: 1, b: undefined }, { a: 1, c: 2 }, false],
    [JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 1}}'), true],
    [JSON.parse('{"__proto__": {"a": 1}}'), {}, false],
  ])("deepEqual(%j, %j) is %s", (a, b, expected) => {
    expect(deepEqual(a, b)).toBe(expected);
    expect(deepEqual(b, a)).toBe(expected);
  });

  // A merge patch is compared with a whole body in every inconsistency check: objects with
  // different numbers of keys differ before any of their values is compared.
  it("compares no values of objects with different numbers of keys", () => {
    let reads = 0;
    const inner = {
      get deep() {
        reads += 1;
        return "value";
      },
    };
    expect(deepEqual({ a: inner }, { a: { deep: "value" }, b: 1 })).toBe(false);
    expect(reads).toBe(0);
    expect(deepEqual({ a: inner }, { a: { deep: "value" } })).toBe(true);
    expect(reads).toBeGreaterThan(0);
  });

  it("does not consider inherited keys as present", () => {
    expect(deepEqual({}, { constructor: Object })).toBe(false);
  });

  // The same JSON with every object's keys in sorted order: what equality means for JSON.
  const canonical = (value: unknown): string =>
    JSON.stringify(value, (_, v: unknown) =>
      isObject(v)
        ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        : v,
    );
  const reordered = (value: JsonValue): JsonValue =>
    Array.isArray(value)
      ? value.map(reordered)
      : isObject(value)
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([k, v]) => [k, reordered(v as JsonValue)]),
          )
        : value;

  it("is the equality of the values' canonical JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(deepEqual(a, b)).toBe(canonical(a) === canonical(b));
        expect(deepEqual(a, reordered(a))).toBe(true);
      }),
    );
  });
});

describe("deepCopy", () => {
  it("copies nested objects and arrays without sharing them", () => {
    const original = { a: { b: [1, { c: 2 }] } };
    const copy = deepCopy(original);
    expect(copy).toEqual(original);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a.b).not.toBe(original.a.b);
    expect(copy.a.b[1]).not.toBe(original.a.b[1]);
  });

  it("keeps a __proto__ key as data, not as a prototype", () => {
    const original = JSON.parse('{"__proto__": {"x": 1}}');
    const copy = deepCopy(original);
    expect(Object.keys(copy)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { x?: number }).x).toBeUndefined();
  });

  it("drops keys holding undefined", () => {
    expect(Object.keys(deepCopy({ a: 1, b: undefined }))).toEqual(["a"]);
  });
});

describe("pyDumps", () => {
  // Expected strings produced by CPython's json.dumps(v, separators=(",", ":")).
  it.each<[string, JsonValue, string]>([
    ["an object with non-ASCII", { a: "é", b: [1, 2.5] }, '{"a":"\\u00e9","b":[1,2.5]}'],
    [
      "control characters",
      '\u0000\u001f\u007f\b\f\n\r\t"\\/',
      '"\\u0000\\u001f\\u007f\\b\\f\\n\\r\\t\\"\\\\/"',
    ],
    ["an astral character", "😀", '"\\ud83d\\ude00"'],
    ["a lone surrogate", "\ud800x", '"\\ud800x"'],
    ["CJK", "日本", '"\\u65e5\\u672c"'],
    [
      "floats",
      [1e-5, 0.0001, 123456789.123, -2.5e-7, 0.1, 5e-324, 1.5e-300],
      "[1e-05,0.0001,123456789.123,-2.5e-07,0.1,5e-324,1.5e-300]",
    ],
    ["integers", [0, -1, 42, 9007199254740991], "[0,-1,42,9007199254740991]"],
    ["empty containers", { a: {}, b: [] }, '{"a":{},"b":[]}'],
    ["scalars", [true, false, null, ""], '[true,false,null,""]'],
    [
      "a Kopf progress record",
      { "kopf.zalando.org/x": { started: "2020", retries: 0, success: true, failure: false, message: null } },
      '{"kopf.zalando.org/x":{"started":"2020","retries":0,"success":true,"failure":false,"message":null}}',
    ],
    ["non-ASCII keys", { ключ: 1 }, '{"\\u043a\\u043b\\u044e\\u0447":1}'],
    ["a float needing an exponent, deep in ASCII", { a: { b: [1, 1.5e-7] } }, '{"a":{"b":[1,1.5e-07]}}'],
    ["a key named toJSON", { toJSON: "x", a: 1 }, '{"toJSON":"x","a":1}'],
    ["DEL inside ASCII", { a: "x\u007f" }, '{"a":"x\\u007f"}'],
  ])("renders %s like Python", (_, value, expected) => {
    expect(pyDumps(value)).toBe(expected);
  });

  it("keeps insertion order of keys", () => {
    expect(pyDumps({ z: 1, a: 2, m: 3 })).toBe('{"z":1,"a":2,"m":3}');
  });

  it("skips undefined values in objects and nulls them in arrays, like JSON.stringify", () => {
    const value = { a: undefined, b: [undefined, 1] } as unknown as JsonValue;
    expect(pyDumps(value)).toBe('{"b":[null,1]}');
  });

  it("writes non-finite numbers as Python does", () => {
    expect(pyDumps([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toBe(
      "[NaN,Infinity,-Infinity]",
    );
  });

  // CPython: json.dumps(json.loads(JSON.stringify(x))) for the same numbers.
  it.each<[number, string]>([
    [-3820998678777924000, "-3820998678777924000"],
    [96686130188116750, "96686130188116750"],
    [1e20, "100000000000000000000"],
    [1e21, "1e+21"],
    [-9.043132089443605e22, "-9.043132089443605e+22"],
    [3.535075302875509e161, "3.535075302875509e+161"],
    [-0, "0"],
  ])("writes the large or integral number %d as %s", (x, expected) => {
    expect(pyDumps(x)).toBe(expected);
  });

  it("produces pure ASCII that parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = pyDumps(value as JsonValue);
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        expect(deepEqual(JSON.parse(text), value)).toBe(true);
      }),
    );
  });

  it("equals JSON.stringify for printable-ASCII strings", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(..." !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~".split("")) }),
        (s) => {
          expect(pyDumps(s)).toBe(JSON.stringify(s));
        },
      ),
    );
  });
});

// Covers the structural comparison: paths of differences in objects, arrays and scalars, keys on
// one side only, path prefixes, and that a value never differs from itself.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Compare from "../src/Compare.ts";

describe("Compare.values", () => {
  it.each([
    ["equal scalars", 1, 1, []],
    ["different scalars", 1, 2, [{ path: "body", real: 1, emulator: 2 }]],
    ["nested key", { a: { b: 1 } }, { a: { b: 2 } }, [{ path: "body.a.b", real: 1, emulator: 2 }]],
    ["key on one side", { a: 1 }, {}, [{ path: "body.a", real: 1, emulator: undefined }]],
    ["odd keys quoted", { "f:data": 1 }, { "f:data": 2 }, [{ path: 'body["f:data"]', real: 1, emulator: 2 }]],
    ["array lengths", [1, 2], [1], [{ path: "body.length", real: 2, emulator: 1 }]],
    ["array items", [1, 2], [1, 3], [{ path: "body[1]", real: 2, emulator: 3 }]],
    ["object vs array", { a: 1 }, [1], [{ path: "body", real: { a: 1 }, emulator: [1] }]],
    ["null vs object", null, {}, [{ path: "body", real: null, emulator: {} }]],
  ])("%s", (_name, real, emulator, expected) => {
    expect(Compare.values("body", real, emulator)).toEqual(expected);
  });

  it("a JSON value never differs from itself", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        (value) => Compare.values("body", value, structuredClone(value)).length === 0,
      ),
    );
  });

  it("differences are symmetric up to swapping sides", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const ab = Compare.values("body", a, b);
        const ba = Compare.values("body", b, a);
        expect(ba).toEqual(ab.map((d) => ({ path: d.path, real: d.emulator, emulator: d.real })));
      }),
    );
  });
});

describe("Compare.outcomes", () => {
  it("compares status, media type and body but not timing", () => {
    const real = {
      interaction: "s/a",
      status: 200,
      mediaType: "application/json",
      body: { a: 1 },
      millis: 3,
    };
    const emulator = {
      interaction: "s/a",
      status: 201,
      mediaType: "text/plain",
      body: { a: 1 },
      millis: 900,
    };
    expect(Compare.outcomes(real, emulator).map((d) => d.path)).toEqual(["status", "mediaType"]);
  });

  it("compares the warnings, none being the same as an empty list", () => {
    const base = { interaction: "s/a", status: 201, mediaType: "application/json", body: {} };
    expect(Compare.outcomes({ ...base, warnings: ["a", "b"] }, { ...base, warnings: ["a"] })).toEqual([
      { path: "warnings.length", real: 2, emulator: 1 },
    ]);
    expect(Compare.outcomes({ ...base, warnings: [] }, base)).toEqual([]);
  });
});

describe("Compare.isUnder", () => {
  it.each([
    ["body.a.b", "body.a", true],
    ["body.a", "body.a", true],
    ["body.a[0]", "body.a", true],
    ["body.ab", "body.a", false],
    ["status", "body", false],
    ["anything", "*", true],
    ["body.items[3].data", "body.items[*]", true],
    ["body.items[3].data", "body.items[*].data", true],
    ["body.items[3].spec", "body.items[*].data", false],
    ["body.metadata.annotations.x", "body.metadata.*", true],
    ["body.metadata", "body.metadata.*", false],
  ])("%s under %s: %s", (path, prefix, expected) => {
    expect(Compare.isUnder(path, prefix)).toBe(expected);
  });
});

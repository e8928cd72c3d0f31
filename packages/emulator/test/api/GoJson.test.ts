/** Go's encoding/json syntax errors, as decode failures report them, and the apiserver's key order of served objects. */
import { describe, expect, it } from "vitest";
import { canonical } from "../../src/api/Canonical.ts";
import { goJsonError } from "../../src/api/internal/GoJson.ts";

describe("goJsonError", () => {
  it.each([
    ['{"a":1}', undefined],
    ["{nope", "invalid character 'n' looking for beginning of object key string"],
    ["", "unexpected end of JSON input"],
    ['{"a":1', "unexpected end of JSON input"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["tru", "unexpected end of JSON input"],
    ["trux", "invalid character 'x' in literal true (expecting 'e')"],
    ["01", "invalid character '1' after top-level value"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["\u0081", "invalid character '\\u0081' looking for beginning of value"],
    ['"a\\qb"', "invalid character 'q' in string escape code"],
  ])("%j", (text, message) => {
    expect(goJsonError(text)).toBe(message);
  });
});

describe("canonical key order", () => {
  it("orders built-ins as Go structs and custom resources as sorted maps", () => {
    const obj = {
      spec: { b: 1, a: 2 },
      metadata: { uid: "u", labels: {}, name: "n" },
      apiVersion: "v1",
      kind: "K",
    };
    expect(Object.keys(canonical(false, obj))).toEqual(["kind", "apiVersion", "metadata", "spec"]);
    expect(Object.keys(canonical(false, obj).metadata as object)).toEqual(["name", "uid", "labels"]);
    const cr = canonical(true, obj);
    expect(Object.keys(cr)).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(Object.keys(cr.spec as object)).toEqual(["a", "b"]);
  });
});

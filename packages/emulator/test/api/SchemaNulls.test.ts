/**
 * `null`s in custom resources, as kube-apiserver treats them before validation: after pruning, a
 * `null` in a property or map value whose schema is neither nullable nor defaulted is dropped (so
 * a required field is then missing); a defaulted one, and a `null` list item with a defaulted
 * item schema, get the default; nullable fields, list items without a default, and the insides of
 * schemas that preserve unknown fields keep their `null`s.
 */
import { describe, expect, it } from "vitest";
import { applyDefaults, dropNonNullableNulls, prune } from "../../src/api/Schema.ts";

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["must"],
      properties: {
        must: { type: "string" },
        plain: { type: "string" },
        nullable: { type: "string", nullable: true },
        defaulted: { type: "string", default: "d" },
        map: { type: "object", additionalProperties: { type: "integer" } },
        defaultedMap: { type: "object", additionalProperties: { type: "integer", default: 7 } },
        list: { type: "array", items: { type: "integer" } },
        defaultedList: { type: "array", items: { type: "integer", default: 3 } },
        any: { "x-kubernetes-preserve-unknown-fields": true },
        nested: { type: "object", properties: { deep: { type: "boolean" } } },
      },
    },
  },
};

const normalized = (spec: Record<string, unknown>) =>
  applyDefaults(dropNonNullableNulls({ spec }, schema), schema).spec as Record<string, unknown>;

describe("dropNonNullableNulls, then applyDefaults", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["a plain field", { must: "x", plain: null }, { must: "x", defaulted: "d" }],
    ["a required field (then missing)", { must: null }, { defaulted: "d" }],
    [
      "a nullable field keeps it",
      { must: "x", nullable: null },
      { must: "x", nullable: null, defaulted: "d" },
    ],
    ["a defaulted field gets the default", { must: "x", defaulted: null }, { must: "x", defaulted: "d" }],
    ["a map value", { must: "x", map: { a: null, b: 1 } }, { must: "x", defaulted: "d", map: { b: 1 } }],
    [
      "a defaulted map value",
      { must: "x", defaultedMap: { a: null } },
      { must: "x", defaulted: "d", defaultedMap: { a: 7 } },
    ],
    ["a list item stays", { must: "x", list: [1, null] }, { must: "x", defaulted: "d", list: [1, null] }],
    [
      "a defaulted list item",
      { must: "x", defaultedList: [null, 1] },
      { must: "x", defaulted: "d", defaultedList: [3, 1] },
    ],
    ["a preserving field itself", { must: "x", any: null }, { must: "x", defaulted: "d" }],
    [
      "inside a preserving field",
      { must: "x", any: { a: null } },
      { must: "x", defaulted: "d", any: { a: null } },
    ],
    ["a nested field", { must: "x", nested: { deep: null } }, { must: "x", defaulted: "d", nested: {} }],
  ])("%s", (_, spec, expected) => {
    expect(normalized(spec)).toEqual(expected);
  });

  it("a null spec is dropped as a whole", () => {
    expect(dropNonNullableNulls({ kind: "K", spec: null }, schema)).toEqual({ kind: "K" });
  });
});

describe("a __proto__ key", () => {
  it("stays an own field through pruning, null-dropping and defaulting", () => {
    const obj = JSON.parse('{"spec": {"must": "x", "any": {"__proto__": 1}, "map": {"__proto__": 2}}}');
    const spec = applyDefaults(dropNonNullableNulls(prune(obj, schema), schema), schema).spec as {
      any: object;
      map: object;
    };
    expect(Object.keys(spec.any)).toEqual(["__proto__"]);
    expect(Object.keys(spec.map)).toEqual(["__proto__"]);
  });
});

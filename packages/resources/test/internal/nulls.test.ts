import { describe, expect, it } from "vitest";
import { dropNonNullableNulls } from "../../src/internal/nulls.ts";
import type { JsonSchemaProps } from "../../src/OpenApi.ts";

const schema: JsonSchemaProps = {
  type: "object",
  properties: {
    plain: { type: "string" },
    nullable: { type: "string", nullable: true },
    defaulted: { type: "string", default: "d" },
    map: { type: "object", additionalProperties: { type: "integer" } },
    list: { type: "array", items: { type: "integer" } },
    defaultedList: { type: "array", items: { type: "integer", default: 3 } },
    any: { "x-kubernetes-preserve-unknown-fields": true },
    nested: { type: "object", properties: { deep: { type: "boolean" } } },
  },
};

describe("dropNonNullableNulls", () => {
  it.each<[string, unknown, unknown]>([
    ["a plain field", { plain: null, nullable: "x" }, { nullable: "x" }],
    ["a nullable field keeps it", { nullable: null }, { nullable: null }],
    ["a defaulted field (the default applies later)", { defaulted: null }, {}],
    ["a map value", { map: { a: null, b: 1 } }, { map: { b: 1 } }],
    ["a list item without a default stays", { list: [null, 1] }, { list: [null, 1] }],
    ["a list item with a default gets it", { defaultedList: [null, 1] }, { defaultedList: [3, 1] }],
    ["a preserving field itself", { any: null }, {}],
    ["inside a preserving field", { any: { a: null } }, { any: { a: null } }],
    ["an undeclared field stays (pruning drops it)", { other: null }, { other: null }],
    ["a nested field", { nested: { deep: null } }, { nested: {} }],
    ["not an object", "x", "x"],
  ])("%s", (_, value, expected) => {
    expect(dropNonNullableNulls(value, schema)).toEqual(expected);
  });
});

it("a __proto__ key stays an own field", () => {
  const value = JSON.parse('{"any": {"__proto__": null, "a": null}}');
  expect(Object.keys((dropNonNullableNulls(value, schema) as { any: object }).any)).toEqual([
    "__proto__",
    "a",
  ]);
});

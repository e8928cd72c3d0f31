/**
 * Custom resource validation details: multipleOf, minProperties, duplicates in a `set` list,
 * null in an int-or-string field (kube-apiserver validates int-or-string as anyOf integer or
 * string), and JSON numbers that are integers only when they fit an int64.
 */
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api/Schema.ts";

const schemaOf = (field: Record<string, unknown>) => ({
  type: "object",
  properties: { spec: { type: "object", properties: { f: field } } },
});

const errors = (field: Record<string, unknown>, value: unknown) =>
  validate({ spec: { f: value } }, schemaOf(field)).map((e) => `${e.type} ${e.field}: ${e.detail ?? ""}`);

describe("validate", () => {
  it.each<[string, Record<string, unknown>, unknown, ReadonlyArray<string>]>([
    ["a multiple", { type: "integer", multipleOf: 5 }, 10, []],
    [
      "not a multiple",
      { type: "integer", multipleOf: 5 },
      7,
      ["FieldValueInvalid spec.f: spec.f in body should be a multiple of 5"],
    ],
    [
      "enough properties",
      { type: "object", minProperties: 1, additionalProperties: { type: "string" } },
      { a: "x" },
      [],
    ],
    [
      "too few properties",
      { type: "object", minProperties: 1, additionalProperties: { type: "string" } },
      {},
      ["FieldValueInvalid spec.f: spec.f in body should have at least 1 properties"],
    ],
    ["a set", { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" }, ["a", "b"], []],
    [
      "a duplicate in a set",
      { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
      ["a", "b", "a"],
      ["FieldValueDuplicate spec.f[2]: "],
    ],
    [
      "null int-or-string",
      { "x-kubernetes-int-or-string": true },
      null,
      ['FieldValueTypeInvalid spec.f: spec.f in body must be of type integer,string: "null"'],
    ],
    ["nullable int-or-string", { "x-kubernetes-int-or-string": true, nullable: true }, null, []],
    ["an int64 integer", { type: "integer" }, 2 ** 62, []],
    [
      "an integral number beyond int64",
      { type: "integer" },
      -1.7976931348623157e308,
      ['FieldValueTypeInvalid spec.f: spec.f in body must be of type integer: "number"'],
    ],
  ])("%s", (_, field, value, expected) => {
    expect(errors(field, value)).toEqual(expected);
  });
});

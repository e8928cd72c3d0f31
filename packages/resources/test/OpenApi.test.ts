import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";
import { Markers, OpenApi } from "../src/index.ts";

const ok = (s: Schema.Top) => Result.getOrThrow(OpenApi.toOpenApi(s));
const err = (s: Schema.Top) =>
  Result.match(OpenApi.toOpenApi(s), { onSuccess: () => "", onFailure: (e) => e.message });

describe("toOpenApi", () => {
  it.each<[string, Schema.Top, Record<string, unknown>]>([
    ["string", Schema.String, { type: "string" }],
    ["number", Schema.Number, { type: "number" }],
    ["integer", Schema.Int, { type: "integer" }],
    ["boolean", Schema.Boolean, { type: "boolean" }],
    [
      "bounds",
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 9 })),
      { type: "integer", minimum: 1, maximum: 9 },
    ],
    [
      "exclusive bounds",
      Schema.Number.check(Schema.isGreaterThan(0), Schema.isLessThan(1)),
      { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
    ],
    ["multipleOf", Schema.Int.check(Schema.isMultipleOf(5)), { type: "integer", multipleOf: 5 }],
    [
      "int32 group",
      Schema.Number.check(Schema.isInt32()),
      { type: "integer", minimum: -2147483648, maximum: 2147483647 },
    ],
    [
      "string lengths and pattern",
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(3), Schema.isPattern(/^a/)),
      { type: "string", minLength: 1, maxLength: 3, pattern: "^a" },
    ],
    [
      "a pattern with slashes as written (a RegExp's source escapes them)",
      Schema.String.check(Schema.isPattern(/^a\/b\\\/c\d$/)),
      { type: "string", pattern: "^a/b\\\\/c\\d$" },
    ],
    [
      "uuid as its pattern",
      Schema.String.check(Schema.isUUID()),
      { type: "string", pattern: expect.stringContaining("[0-9a-fA-F]{8}") },
    ],
    ["enum", Schema.Literals(["a", "b"]), { type: "string", enum: ["a", "b"] }],
    ["one literal", Schema.Literal(3), { type: "integer", enum: [3] }],
    ["nullable", Schema.NullOr(Schema.String), { type: "string", nullable: true }],
    [
      "array",
      Schema.Array(Schema.String).check(Schema.isMinLength(1), Schema.isMaxLength(2)),
      { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 },
    ],
    [
      "unique array as a set",
      Schema.Array(Schema.String).check(Schema.isUnique()),
      { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
    ],
    [
      "map",
      Schema.Record(Schema.String, Schema.Int).check(Schema.isMaxProperties(2)),
      { type: "object", additionalProperties: { type: "integer" }, maxProperties: 2 },
    ],
    ["int-or-string", Markers.IntOrString, { "x-kubernetes-int-or-string": true }],
    ["any json", Markers.AnyJson, { "x-kubernetes-preserve-unknown-fields": true }],
    ["unknown", Schema.Unknown, { "x-kubernetes-preserve-unknown-fields": true }],
    [
      "date from string: its stored form",
      Schema.DateTimeUtcFromString.pipe(Markers.format("date-time")),
      { type: "string", format: "date-time" },
    ],
    [
      "description",
      Schema.String.annotate({ description: "the name" }),
      { type: "string", description: "the name" },
    ],
    [
      "list map",
      Schema.Array(Schema.Struct({ name: Schema.String })).pipe(Markers.listType("map", ["name"])),
      {
        type: "array",
        items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      },
    ],
    [
      "map type",
      Schema.Record(Schema.String, Schema.String).pipe(Markers.mapType("atomic")),
      { type: "object", additionalProperties: { type: "string" }, "x-kubernetes-map-type": "atomic" },
    ],
    [
      "CEL rules",
      Schema.Struct({ a: Schema.Int }).pipe(
        Markers.validations([{ rule: "self.a > 0", message: "positive" }]),
      ),
      {
        type: "object",
        properties: { a: { type: "integer" } },
        required: ["a"],
        "x-kubernetes-validations": [{ rule: "self.a > 0", message: "positive" }],
      },
    ],
  ])("%s", (_, schema, expected) => {
    expect(ok(schema)).toEqual(expected);
  });

  it("a struct: required, optional and defaulted fields", () => {
    const s = Schema.Struct({
      a: Schema.String,
      b: Schema.optionalKey(Schema.Int),
      c: Schema.optional(Schema.Boolean),
      d: Schema.Int.pipe(Markers.withDefault(3)),
      e: Schema.Struct({ f: Schema.String.pipe(Markers.withDefault("x")) }).pipe(Markers.withDefault({})),
    });
    expect(ok(s)).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "integer" },
        c: { type: "boolean" },
        d: { type: "integer", default: 3 },
        e: { type: "object", properties: { f: { type: "string", default: "x" } }, default: {} },
      },
      required: ["a"],
    });
  });

  it("a struct preserving unknown fields", () => {
    expect(ok(Markers.preserveUnknownFields({ a: Schema.String }))).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  it.each<[string, Schema.Top, string]>([
    ["tuples", Schema.Tuple([Schema.String]), "x: tuples have no structural form; use Schema.Array"],
    ["mixed unions", Schema.Union([Schema.String, Schema.Struct({})]), "x: a union other than literals"],
    [
      "custom checks",
      Schema.String.check(Schema.makeFilter((s) => s.length !== 2, { expected: "not two chars" })),
      'x: the check "not two chars" has no OpenAPI form',
    ],
    [
      "properties with a typed index",
      Schema.StructWithRest(Schema.Struct({ a: Schema.String }), [
        Schema.Record(Schema.String, Schema.String),
      ]),
      "x: properties and additionalProperties together are not structural",
    ],
    ["bigint", Schema.BigInt, "x: a BigInt schema has no OpenAPI form"],
  ])("rejects %s, naming the field", (_, schema, message) => {
    expect(err(Schema.Struct({ x: schema }))).toContain(message);
  });
});

import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { Crd, TypesFromCrd } from "../src/index.ts";
import { Example } from "./fixtures.ts";

const crdOf = (spec: Record<string, unknown>) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "things.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Thing", plural: "things" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
      },
    ],
  },
});

describe("fromCrd", () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      "a struct with required and optional keys",
      { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] },
      "Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.Int) })",
    ],
    [
      "bounds",
      { type: "integer", minimum: 1, maximum: 5 },
      "Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(5))",
    ],
    ["an enum", { type: "string", enum: ["a", "b"] }, 'Schema.Literals(["a", "b"])'],
    [
      "a pattern",
      { type: "string", pattern: "^x$" },
      'Schema.String.check(Schema.isPattern(new RegExp("^x$")))',
    ],
    [
      "a map",
      { type: "object", additionalProperties: { type: "string" } },
      "Schema.Record(Schema.String, Schema.String)",
    ],
    [
      "an array set",
      { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
      'Schema.Array(Schema.String).check(Schema.isUnique()).pipe(kopf.Resources.openApi({ "x-kubernetes-list-type": "set" }))',
    ],
    [
      "string lengths, in code points as the API server counts them",
      { type: "string", minLength: 1, maxLength: 3 },
      "Schema.String.check(Schema.isMinCodePoints(1), Schema.isMaxCodePoints(3))",
    ],
    [
      "list lengths",
      { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
      "Schema.Array(Schema.String).check(Schema.isMinLength(1), Schema.isMaxLength(3))",
    ],
    ["nullable", { type: "string", nullable: true }, "Schema.NullOr(Schema.String)"],
    ["int-or-string", { "x-kubernetes-int-or-string": true }, "kopf.Resources.IntOrString"],
    [
      "an object of preserved fields",
      { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      "kopf.Resources.preserveUnknownFields({})",
    ],
    ["any preserved value", { "x-kubernetes-preserve-unknown-fields": true }, "kopf.Resources.AnyJson"],
    [
      "a default",
      { type: "object", properties: { a: { type: "string", default: "x" } } },
      'Schema.Struct({ a: Schema.String.pipe(kopf.Resources.withDefault("x")) })',
    ],
    [
      "CEL rules",
      { type: "object", "x-kubernetes-validations": [{ rule: "true" }] },
      'Schema.Struct({}).pipe(kopf.Resources.openApi({ "x-kubernetes-validations": [{ rule: "true" }] }))',
    ],
  ])("%s", (_, spec, expected) => {
    const source = Result.getOrThrow(TypesFromCrd.fromCrd(crdOf(spec)));
    expect(source).toContain(`export const ThingV1Spec = ${expected};`);
    expect(source).toContain("export type ThingV1Spec = typeof ThingV1Spec.Type;");
    expect(source).toContain(
      'export const Thing = kopf.resource({\n  group: "example.com",\n  kind: "Thing",\n  plural: "things",',
    );
  });

  it("a generated CRD: every version, status, printer columns", () => {
    const source = Result.getOrThrow(TypesFromCrd.fromCrd(Result.getOrThrow(Crd.fromResource(Example))));
    expect(source).toContain(
      "export const TypedExampleV1Spec = Schema.Struct({ size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(10))",
    );
    expect(source).toContain(
      'v2: { spec: TypedExampleV2Spec, status: TypedExampleV2Status, printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }] },',
    );
    expect(source).toContain('storage: "v2",');
  });

  it.each([
    ["not a CRD", { kind: "Pod" }, "not a CustomResourceDefinition"],
    [
      "a typeless field",
      crdOf({ type: "object", properties: { a: {} } }),
      "v1.spec.a: a schema without a type is not structural",
    ],
  ])("rejects %s", (_, crd, message) => {
    const result = TypesFromCrd.fromCrd(crd);
    expect(Result.isFailure(result) && result.failure.message).toBe(message);
  });
});

// Covers the diff-base storages' fetch and store (docs/behaviour/causes.md#last-handled-configuration, ported from Kopf's
// tests/persistence/test_storing_of_diffbase.py): defaults and options, fetching with and
// without surrounding newlines, compact JSON with a trailing newline in annotations and without
// in the status, overwriting, V1/V2 keys, the multi storage, decoding errors, the
// store-only-if-changed rule, and a store-then-fetch round trip as a property.
import { describe, expect, it } from "@effect/vitest";
import { FieldPath, Json, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import * as AnnotationsDiffBaseStorage from "../src/AnnotationsDiffBaseStorage.ts";
import * as DiffBaseStorage from "../src/DiffBaseStorage.ts";
import * as MultiDiffBaseStorage from "../src/MultiDiffBaseStorage.ts";
import * as StatusDiffBaseStorage from "../src/StatusDiffBaseStorage.ts";

const ok = <A, E>(result: Result.Result<A, E>): A => Result.getOrThrow(result);

const ESSENCE_1 = {
  spec: {
    "string-field": "value1",
    "integer-field": 123,
    "float-field": 123.456,
    "false-field": false,
    "true-field": true,
  },
};
const ESSENCE_2 = { spec: { hello: "world", "the-cake": false } };
// As Python's json.dumps(essence, separators=(",", ":")) writes them.
const JSON_1 =
  '{"spec":{"string-field":"value1","integer-field":123,"float-field":123.456,"false-field":false,"true-field":true}}';
const JSON_2 = '{"spec":{"hello":"world","the-cake":false}}';
const KEY = "my-operator.example.com/diff-base";

const annotations = () =>
  ok(AnnotationsDiffBaseStorage.make({ prefix: "my-operator.example.com", key: "diff-base" }));
const status = () => StatusDiffBaseStorage.make({ field: "status.my-operator.diff-base" });
const dual = () => MultiDiffBaseStorage.make([annotations(), status()]);

describe("construction", () => {
  it("has Kopf's defaults", () => {
    expect(AnnotationsDiffBaseStorage.makeDefault()).toMatchObject({
      prefix: "kopf.zalando.org",
      key: "last-handled-configuration",
      v1: true,
    });
    expect(StatusDiffBaseStorage.make().field).toEqual(["status", "kopf", "last-handled-configuration"]);
  });

  it("takes a prefix and key, or a field with {name}", () => {
    expect(annotations()).toMatchObject({ prefix: "my-operator.example.com", key: "diff-base" });
    expect(status().field).toEqual(["status", "my-operator", "diff-base"]);
    expect(StatusDiffBaseStorage.make({ name: "op" }).field).toEqual([
      "status",
      "op",
      "last-handled-configuration",
    ]);
  });

  it("rejects an empty prefix and warns about a long one", () => {
    const empty = AnnotationsDiffBaseStorage.make({ prefix: "" });
    expect(Result.isFailure(empty) && empty.failure.reason).toBe("EmptyPrefix");
    expect(ok(AnnotationsDiffBaseStorage.make({ prefix: "p".repeat(190) })).warnings).toHaveLength(1);
  });
});

const ALL = [
  ["annotations", annotations],
  ["status", status],
  ["dual", dual],
] as const;

describe.each(ALL)("%s storage", (_, make) => {
  it("fetches nothing from an empty body", () => {
    expect(ok(make().fetch({ body: {} }))).toBeUndefined();
  });
});

const WRAPPINGS = [
  ["", ""],
  ["", "\n"],
  ["\n", ""],
  ["\n", "\n"],
] as const;

describe.each([
  ["annotations", annotations],
  ["dual", dual],
] as const)("annotations-populating %s storage", (_, make) => {
  it.each(WRAPPINGS)("fetches %j + JSON + %j", (before, after) => {
    const body = { metadata: { annotations: { [KEY]: `${before}${JSON_1}${after}` } } };
    expect(ok(make().fetch({ body }))).toEqual(ESSENCE_1);
  });

  it("stores compact JSON with one trailing newline, overwriting older content", () => {
    const patch = Patch.make({});
    make().store({ body: {}, patch, essence: ESSENCE_1 });
    expect(patch.metadata.annotations[KEY]).toBe(`${JSON_1}\n`);
    make().store({ body: {}, patch, essence: ESSENCE_2 });
    expect(patch.metadata.annotations[KEY]).toBe(`${JSON_2}\n`);
  });
});

describe.each([
  ["status", status],
  ["dual", dual],
] as const)("status-populating %s storage", (_, make) => {
  it.each(WRAPPINGS)("fetches %j + JSON + %j", (before, after) => {
    const body = { status: { "my-operator": { "diff-base": `${before}${JSON_1}${after}` } } } as RawBody;
    const fetched = ok(make().fetch({ body }));
    expect(fetched).toEqual(ESSENCE_1);
  });

  it("stores compact JSON without a newline, overwriting older content", () => {
    const patch = Patch.make({});
    make().store({ body: {}, patch, essence: ESSENCE_1 });
    expect(FieldPath.resolve(patch.toMergePatch(), ["status", "my-operator", "diff-base"])).toBe(JSON_1);
    make().store({ body: {}, patch, essence: ESSENCE_2 });
    expect(FieldPath.resolve(patch.toMergePatch(), ["status", "my-operator", "diff-base"])).toBe(JSON_2);
  });
});

describe("keys and the multi storage", () => {
  it("writes V2 and V1 keys for long keys and reads either", () => {
    const key = "k".repeat(60);
    const storage = ok(AnnotationsDiffBaseStorage.make({ prefix: "my-operator.example.com", key }));
    const patch = Patch.make({});
    storage.store({ body: {}, patch, essence: ESSENCE_2 });
    const written = Object.keys(patch.metadata.annotations);
    expect(written).toHaveLength(3); // V2, V1, and the kopf-managed marker
    expect(written[0]).toBe(`my-operator.example.com/${key}`);
    const onlyV1 = { metadata: { annotations: { [written[1] as string]: `${JSON_2}\n` } } };
    expect(ok(storage.fetch({ body: onlyV1 }))).toEqual(ESSENCE_2);
  });

  it("reads the first storage that has an essence", () => {
    const body = {
      metadata: { annotations: { [KEY]: JSON_2 } },
      status: { "my-operator": { "diff-base": JSON_1 } },
    } as RawBody;
    expect(ok(dual().fetch({ body }))).toEqual(ESSENCE_2);
    expect(ok(MultiDiffBaseStorage.make([status(), annotations()]).fetch({ body }))).toEqual(ESSENCE_1);
  });

  it("lets each storage drop its own fields from the essence", () => {
    const body = {
      metadata: { annotations: { [KEY]: JSON_2, keep: "1" } },
      status: { "my-operator": { "diff-base": JSON_1 }, phase: "Ready" },
      spec: { a: 1 },
    } as RawBody;
    expect(dual().build({ body, extraFields: ["status"] })).toEqual({
      spec: { a: 1 },
      metadata: { annotations: { keep: "1" } },
      status: { phase: "Ready" },
    });
  });
});

describe("decoding errors", () => {
  it.each([
    ["broken JSON", "{", "InvalidJson"],
    ["a list", "[1]", "NotAnObject"],
  ])("reports %s in an annotation", (_, text, reason) => {
    const result = annotations().fetch({ body: { metadata: { annotations: { [KEY]: text } } } });
    expect(Result.isFailure(result) && result.failure.reason).toBe(reason);
  });

  it("reports a non-string status field", () => {
    const body = { status: { "my-operator": { "diff-base": { spec: {} } } } } as RawBody;
    const result = status().fetch({ body });
    expect(Result.isFailure(result) && result.failure.reason).toBe("InvalidField");
  });

  it("treats the text null as no essence", () => {
    expect(
      ok(annotations().fetch({ body: { metadata: { annotations: { [KEY]: "null" } } } })),
    ).toBeUndefined();
  });
});

describe("storeIfChanged (docs/behaviour/causes.md#last-handled-configuration)", () => {
  it.each([
    ["no new essence", ESSENCE_1, null, false],
    ["an equal essence", ESSENCE_1, { spec: { ...ESSENCE_1.spec } }, false],
    ["a changed essence", ESSENCE_1, ESSENCE_2, true],
    ["a first essence", null, ESSENCE_2, true],
  ] as const)("with %s stores: %s", (_, old, next, expected) => {
    const patch = Patch.make({});
    const stored = DiffBaseStorage.storeIfChanged(annotations(), { body: {}, patch, old, new: next });
    expect(stored).toBe(expected);
    expect(patch.isEmpty()).toBe(!expected);
  });
});

describe("round trip (property)", () => {
  const essenceArb = fc.record({
    spec: fc.dictionary(fc.string(), fc.jsonValue({ noUnicodeString: false })),
    data: fc.dictionary(fc.string(), fc.string({ unit: "binary" })),
  });

  it.each(ALL)("store then fetch gives the essence back (%s)", (_, make) => {
    fc.assert(
      fc.property(essenceArb, (essence) => {
        const storage = make();
        const patch = Patch.make({});
        storage.store({ body: {}, patch, essence: essence as Json.JsonObject });
        const fetched = ok(storage.fetch({ body: patch.toMergePatch() as RawBody }));
        expect(Json.deepEqual(fetched, JSON.parse(JSON.stringify(essence)))).toBe(true);
      }),
    );
  });
});

// PatchValue: the pure builders of a typed patch value, its status/main split, and its JSON
// patch with the resource-version guard.
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MutableBody, RawBody } from "../src/Body.ts";
import type { JsonObject, JsonValue } from "../src/Json.ts";
import * as JsonPatch from "../src/JsonPatch.ts";
import * as PatchValue from "../src/PatchValue.ts";
import { failureOf } from "./support/failureOf.ts";

const { empty, make } = PatchValue;

describe("building a patch value", () => {
  const cases: ReadonlyArray<{
    readonly name: string;
    readonly build: () => PatchValue.PatchValue;
    readonly mergePatch: JsonObject;
  }> = [
    { name: "empty", build: () => empty, mergePatch: {} },
    {
      name: "setPath creates parents",
      build: () => PatchValue.setPath(empty, ["metadata", "labels", "app"], "web"),
      mergePatch: { metadata: { labels: { app: "web" } } },
    },
    {
      name: "setPath with an empty path changes nothing",
      build: () => PatchValue.setPath(make({ spec: { a: 1 } }), [], { x: 1 }),
      mergePatch: { spec: { a: 1 } },
    },
    {
      name: "setPath replaces a scalar parent",
      build: () => PatchValue.setPath(make({ spec: 1 }), ["spec", "a"], 2),
      mergePatch: { spec: { a: 2 } },
    },
    {
      name: "removePath writes null",
      build: () => PatchValue.removePath(make({ spec: { a: 1 } }), ["spec", "b"]),
      mergePatch: { spec: { a: 1, b: null } },
    },
    {
      name: "merge merges objects key by key",
      build: () =>
        PatchValue.merge(make({ status: { a: 1, n: { x: 1 } } }), { status: { b: 2, n: { y: 2 } } }),
      mergePatch: { status: { a: 1, b: 2, n: { x: 1, y: 2 } } },
    },
    {
      name: "merge replaces with null, lists and scalars",
      build: () =>
        PatchValue.merge(make({ spec: { a: { x: 1 }, b: [1], c: 1 } }), {
          spec: { a: null, b: [2], c: { d: 1 } },
        }),
      mergePatch: { spec: { a: null, b: [2], c: { d: 1 } } },
    },
    {
      name: "merge of a null section by an object replaces it",
      build: () => PatchValue.merge(make({ spec: null }), { spec: { a: 1 } }),
      mergePatch: { spec: { a: 1 } },
    },
    {
      name: "merge skips undefined values",
      build: () => PatchValue.merge(make({ spec: { a: 1 } }), { spec: { a: undefined } }),
      mergePatch: { spec: { a: 1 } },
    },
  ];
  it.each(cases)("$name", ({ build, mergePatch }) => {
    expect(build().mergePatch).toEqual(mergePatch);
  });

  it("never mutates its inputs nor shares the values written", () => {
    const written = { nested: { a: 1 } };
    const base = make({ spec: { a: 1 } });
    const built = PatchValue.merge(PatchValue.setPath(base, ["status", "x"], written), { spec: { b: 2 } });
    written.nested.a = 2;
    expect(base.mergePatch).toEqual({ spec: { a: 1 } });
    expect(built.mergePatch).toEqual({ spec: { a: 1, b: 2 }, status: { x: { nested: { a: 1 } } } });
  });

  it("appends operations in order", () => {
    const first: PatchValue.PatchFn = () => {};
    const second: PatchValue.PatchFn = () => {};
    const built = PatchValue.withOps(PatchValue.withOps(empty, first), second);
    expect(built.ops).toEqual([first, second]);
    expect(empty.ops).toEqual([]);
  });

  it.each([
    { name: "empty", value: empty, expected: true },
    { name: "a field", value: make({ spec: {} }), expected: false },
    { name: "an operation", value: PatchValue.withOps(empty, () => {}), expected: false },
  ])("isEmpty: $name is $expected", ({ value, expected }) => {
    expect(PatchValue.isEmpty(value)).toBe(expected);
  });
});

describe("splitting a patch for the status subresource", () => {
  it.each<{
    name: string;
    mergePatch: JsonObject;
    status: JsonObject | undefined;
    main: JsonObject | undefined;
  }>([
    { name: "nothing", mergePatch: {}, status: undefined, main: undefined },
    { name: "status only", mergePatch: { status: { a: 1 } }, status: { status: { a: 1 } }, main: undefined },
    { name: "main only", mergePatch: { spec: { b: 2 } }, status: undefined, main: { spec: { b: 2 } } },
    {
      name: "both",
      mergePatch: { metadata: { labels: { x: null } }, status: null, spec: { b: 2 } },
      status: { status: null },
      main: { metadata: { labels: { x: null } }, spec: { b: 2 } },
    },
  ])("$name", ({ mergePatch, status, main }) => {
    const value = make(mergePatch);
    expect(PatchValue.statusPart(value)).toEqual(status);
    expect(PatchValue.mainPart(value)).toEqual(main);
  });

  it.each([
    { path: "/status", expected: true },
    { path: "/status/phase", expected: true },
    { path: "/statuses", expected: false },
    { path: "/spec/status", expected: false },
  ])("isStatusOp($path) is $expected", ({ path, expected }) => {
    expect(PatchValue.isStatusOp({ op: "remove", path })).toBe(expected);
  });
});

describe("the JSON patch of a patch value", () => {
  const body = { metadata: { name: "n", resourceVersion: "7", finalizers: ["a"] } } as RawBody;

  it.each<{ name: string; value: PatchValue.PatchValue; guarded: boolean; expected: JsonPatch.JsonPatch }>([
    { name: "empty", value: empty, guarded: true, expected: [] },
    { name: "no change", value: make({ metadata: { name: "n" } }), guarded: true, expected: [] },
    {
      name: "an operation, unguarded",
      value: PatchValue.withOps(empty, (b) => {
        b.metadata?.finalizers?.push("b");
      }),
      guarded: false,
      expected: [{ op: "add", path: "/metadata/finalizers/1", value: "b" }],
    },
    {
      name: "a merge patch and an operation, guarded",
      value: PatchValue.withOps(make({ status: { phase: "Ready" } }), (b) => {
        b.metadata?.finalizers?.splice(0, 1);
      }),
      guarded: true,
      expected: [
        { op: "test", path: "/metadata/resourceVersion", value: "7" },
        { op: "add", path: "/status", value: { phase: "Ready" } },
        { op: "remove", path: "/metadata/finalizers/0" },
      ],
    },
  ])("$name", ({ value, guarded, expected }) => {
    expect(Result.getOrThrow(PatchValue.asJsonPatch(value, body, { guarded }))).toEqual(expected);
  });

  it("guards with null when the reference has no resource version", () => {
    expect(PatchValue.guard({})).toEqual({ op: "test", path: "/metadata/resourceVersion", value: null });
  });

  it("fails with FnFailed naming the operation when one throws, leaving the reference intact", () => {
    const value = PatchValue.withOps(make({ spec: { a: 1 } }), function broken() {
      throw new Error("boom");
    });
    const failure = failureOf(PatchValue.asJsonPatch(value, body));
    expect(failure.reason).toBe("FnFailed");
    expect(failure.message).toBe("Patch function #0 (broken) failed: Error: boom");
    expect(body).toEqual({ metadata: { name: "n", resourceVersion: "7", finalizers: ["a"] } });
  });

  const json = fc
    .jsonValue({ maxDepth: 3 })
    .filter((value) => !JSON.stringify(value).includes('"__proto__"')) as fc.Arbitrary<JsonValue>;
  const keys = fc.constantFrom("a", "b", "c", "~/x", "status");
  // Objects read from the API server always carry a resource version.
  const bodies = fc
    .tuple(
      fc.dictionary(keys, fc.oneof(json, fc.dictionary(fc.constantFrom("a", "b", "c"), json))),
      fc.string(),
    )
    .map(([fields, rv]) => ({ ...fields, metadata: { resourceVersion: rv } }) as RawBody);
  const mergePatches = fc.dictionary(
    keys,
    fc.oneof(
      fc.constant(null),
      json,
      fc.dictionary(fc.constantFrom("a", "b", "c"), fc.oneof(fc.constant(null), json)),
    ),
  ) as fc.Arbitrary<JsonObject>;
  const appendOp: PatchValue.PatchFn = (b) => {
    b.extra = [...(Array.isArray(b.extra) ? b.extra : []), "item"];
  };
  const dropOp: PatchValue.PatchFn = (b) => {
    delete b.a;
  };
  const opLists = fc.array(fc.constantFrom(appendOp, dropOp), { maxLength: 3 });

  it("gives a guarded JSON patch that, applied to the body, equals the merge patch plus the operations", () => {
    fc.assert(
      fc.property(bodies, mergePatches, opLists, (body, mergePatch, ops) => {
        const value = PatchValue.withOps(PatchValue.merge(empty, mergePatch), ...ops);
        const expected: MutableBody = Result.getOrThrow(PatchValue.applyTo(body, value));
        const jsonPatch = Result.getOrThrow(PatchValue.asJsonPatch(value, body, { guarded: true }));
        expect(Result.getOrThrow(JsonPatch.apply(body, jsonPatch))).toEqual(expected);
      }),
    );
  });

  it("gives a guarded JSON patch that fails on a body at another resource version", () => {
    fc.assert(
      fc.property(bodies, mergePatches, opLists, (body, mergePatch, ops) => {
        const value = PatchValue.withOps(PatchValue.merge(empty, mergePatch), ...ops);
        const jsonPatch = Result.getOrThrow(PatchValue.asJsonPatch(value, body, { guarded: true }));
        const moved = { ...body, metadata: { resourceVersion: `${body.metadata?.resourceVersion}+1` } };
        expect(Result.isFailure(JsonPatch.apply(moved, jsonPatch))).toBe(jsonPatch.length > 0);
      }),
    );
  });
});

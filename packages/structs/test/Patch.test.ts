// Patch: the merge-patch accumulator with auto-vivifying views, fns, merge semantics and
// JSON-patch generation (docs/behaviour/registration.md#public-api, docs/behaviour/processing.md#json-patches, vectors docs/behaviour/processing.md#json-patches).
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MutableBody, RawBody } from "../src/Body.ts";
import * as FieldPath from "../src/FieldPath.ts";
import { deepEqual, isObject, type JsonObject, pyDumps } from "../src/Json.ts";
import * as JsonPatch from "../src/JsonPatch.ts";
import { applyMergePatch, isEmpty, make, Patch, PatchError, type PatchFn } from "../src/Patch.ts";
import { failureOf } from "./support/failureOf.ts";

const opsOf = (patch: Patch, body?: RawBody): JsonPatch.JsonPatch =>
  Result.getOrThrow(patch.asJsonPatch(body));

describe("writing into a patch", () => {
  it("starts empty", () => {
    const patch = new Patch();
    expect(patch.isEmpty()).toBe(true);
    expect(isEmpty(patch)).toBe(true);
    expect(patch.toMergePatch()).toEqual({});
  });

  it("does not become non-empty by reading its sections", () => {
    const patch = new Patch();
    expect(patch.status.x).toBeUndefined();
    expect(patch.spec.field).toBeUndefined();
    expect(patch.metadata.labels.app).toBeUndefined();
    expect(patch.meta.annotations.a).toBeUndefined();
    expect(Object.keys(patch.status)).toEqual([]);
    expect(patch.data).toBeUndefined();
    expect(patch.isEmpty()).toBe(true);
    expect(patch.toMergePatch()).toEqual({});
  });

  it("reads back what was written into its sections", () => {
    const patch = new Patch();
    patch.status.x = 1;
    patch.spec.replicas = 3;
    patch.metadata.labels.k = "v";
    patch.meta.annotations.a = null;
    expect(patch.isEmpty()).toBe(false);
    expect(patch.toMergePatch()).toEqual({
      status: { x: 1 },
      spec: { replicas: 3 },
      metadata: { labels: { k: "v" }, annotations: { a: null } },
    });
  });

  it("keeps its sections as plain objects to read and write", () => {
    const patch = new Patch();
    const nested: Record<string, number> = { a: 1 };
    patch.status.nested = nested;
    nested.b = 2;
    expect(patch.status.nested).toEqual({ a: 1, b: 2 });
    expect(patch.status).toEqual({ nested: { a: 1, b: 2 } });
    expect(patch.meta).toBe(patch.metadata);
    expect(patch.status).toBe(patch.status);
  });

  it("replaces whole fields and other top-level keys", () => {
    const patch = new Patch();
    patch.spec = { a: 1 };
    patch.meta = { labels: { x: "y" } };
    patch.data = { key: "value" };
    patch.status = null;
    expect(patch.toMergePatch()).toEqual({
      spec: { a: 1 },
      metadata: { labels: { x: "y" } },
      data: { key: "value" },
      status: null,
    });
    expect(Object.keys(patch.toMergePatch())).toEqual(["metadata", "spec", "status", "data"]);
    expect(JSON.parse(JSON.stringify(patch))).toEqual(patch.toMergePatch());
  });

  it("replaces labels and annotations wholesale", () => {
    const patch = new Patch();
    patch.meta.labels = null;
    patch.metadata.annotations = { a: "b" };
    expect(patch.toMergePatch()).toEqual({ metadata: { labels: null, annotations: { a: "b" } } });
    expect(Object.keys(patch.meta.labels)).toEqual([]);
    expect(patch.meta.annotations.a).toBe("b");
  });

  it("writes into a section set to null by replacing the null", () => {
    const patch = new Patch();
    patch.status = null;
    patch.status.x = 1;
    expect(patch.toMergePatch()).toEqual({ status: { x: 1 } });
  });

  it("copies assigned sections and what it reads back, so neither caller data nor bodies are aliased", () => {
    const spec = { items: [1] };
    const patch = new Patch();
    patch.spec = spec;
    patch.spec.items = [1, 2];
    patch.status.conditions = [{ type: "Ready" }];
    expect(spec).toEqual({ items: [1] });
    const merge = patch.toMergePatch();
    (merge as { spec: { items: Array<number> } }).spec.items.push(3);
    expect(patch.spec.items).toEqual([1, 2]);
  });

  it("supports delete and the in operator", () => {
    const patch = new Patch();
    patch.data = 1;
    patch.status.x = 1;
    expect("data" in patch).toBe(true);
    expect("x" in patch.status).toBe(true);
    expect("clear" in patch).toBe(true);
    delete patch.status.x;
    delete patch.data;
    expect(patch.toMergePatch()).toEqual({});
    expect(patch.isEmpty()).toBe(true);
    patch.status = {};
    expect(patch.toMergePatch()).toEqual({ status: {} });
    Reflect.deleteProperty(patch, "status");
    expect(patch.isEmpty()).toBe(true);
  });

  it("reads back a section deleted and written again as plain data, as the storages do", () => {
    const patch = new Patch();
    patch.metadata.annotations.a = "x";
    delete patch.metadata.annotations.a;
    Reflect.deleteProperty(patch.metadata, "annotations");
    Object.assign(patch.metadata, { annotations: { b: "y" } });
    Reflect.deleteProperty(patch, "status");
    Object.assign(patch, { status: { phase: "Ready" } });
    expect(patch.toMergePatch()).toEqual({
      metadata: { annotations: { b: "y" } },
      status: { phase: "Ready" },
    });
    patch.clear();
    expect(patch.isEmpty()).toBe(true);
    patch.status.x = 1;
    patch.metadata.annotations.c = "z";
    expect(patch.toMergePatch()).toEqual({ metadata: { annotations: { c: "z" } }, status: { x: 1 } });
  });

  it("types its status and spec sections with its type parameters", () => {
    interface Status {
      [key: string]: string | number | null | undefined;
      phase?: string;
      replicas?: number;
    }
    const patch = new Patch<Status>();
    patch.status.phase = "Ready";
    patch.status.replicas = 3;
    // @ts-expect-error: a number is not a phase
    patch.status.phase = 1;
    patch.metadata.labels = { app: null };
    expect(patch.toMergePatch()).toEqual({
      metadata: { labels: { app: null } },
      status: { phase: 1, replicas: 3 },
    });
  });

  it("refuses to overwrite its methods", () => {
    const patch = new Patch();
    expect(() => {
      patch.isEmpty = () => true;
    }).toThrow(TypeError);
    expect(patch.isEmpty()).toBe(true);
  });

  it("is not empty with fns only", () => {
    const patch = new Patch();
    patch.fns.push(() => {});
    expect(patch.isEmpty()).toBe(false);
    expect(patch.toMergePatch()).toEqual({});
  });

  // `metadata`'s nested sections are defined on its object when it is first handed out (see
  // internal/patchSections.ts): reading the patch back before that must not lose them.
  it("hands out labels and annotations after being read back, cleared or replaced untouched", () => {
    const patch = new Patch();
    expect(patch.isEmpty()).toBe(true);
    expect(patch.toMergePatch()).toEqual({});
    patch.clear();
    expect(patch.meta).toBe(patch.metadata);
    expect(Object.keys(patch.metadata)).toEqual(["labels", "annotations"]);
    patch.meta.labels.k = "v";
    expect(patch.toMergePatch()).toEqual({ metadata: { labels: { k: "v" } } });

    const replaced = new Patch();
    replaced.metadata = null;
    expect(replaced.toMergePatch()).toEqual({ metadata: null });
    replaced.metadata = { labels: { a: "1" }, name: "x" };
    replaced.metadata.labels.b = "2";
    replaced.meta.annotations.c = "3";
    expect(replaced.toMergePatch()).toEqual({
      metadata: { labels: { a: "1", b: "2" }, name: "x", annotations: { c: "3" } },
    });
    replaced.metadata = null;
    replaced.metadata.annotations.d = "4";
    expect(replaced.toMergePatch()).toEqual({ metadata: { annotations: { d: "4" } } });
  });

  it("clears both the dict and the fns, keeping the views working", () => {
    const patch = new Patch();
    const status = patch.status;
    patch.status.x = 1;
    patch.fns.push(() => {});
    patch.clear();
    expect(patch.isEmpty()).toBe(true);
    status.y = 2;
    expect(patch.toMergePatch()).toEqual({ status: { y: 2 } });
  });

  it("copies with its fns and original body, independently", () => {
    const body = { spec: { a: 1 } };
    const fn: PatchFn = () => {};
    const patch = new Patch(body);
    patch.spec.a = 2;
    patch.fns.push(fn);
    const copy = patch.copy();
    copy.spec.b = 3;
    copy.fns.push(() => {});
    expect(copy.toMergePatch()).toEqual({ spec: { a: 2, b: 3 } });
    expect(copy.fns[0]).toBe(fn);
    expect(copy.original).toBe(body);
    expect(patch.toMergePatch()).toEqual({ spec: { a: 2 } });
    expect(patch.fns).toHaveLength(1);
    expect(copy).toBeInstanceOf(Patch);
  });

  it("can be made from a merge patch and fns", () => {
    const fn: PatchFn = () => {};
    const patch = new Patch(null, { mergePatch: { spec: { a: 1 } }, fns: [fn] });
    expect(patch.toMergePatch()).toEqual({ spec: { a: 1 } });
    expect(patch.fns).toEqual([fn]);
    expect(make().isEmpty()).toBe(true);
  });
});

describe("isEmpty", () => {
  // Answered without reading the merge patch back: it must agree with what is read back.
  const cases: ReadonlyArray<readonly [string, (patch: Patch) => void, boolean]> = [
    ["untouched", () => {}, true],
    [
      "a status field",
      (p) => {
        p.status.phase = "Ready";
      },
      false,
    ],
    [
      "a null spec field (a deletion)",
      (p) => {
        p.spec.a = null;
      },
      false,
    ],
    [
      "a label",
      (p) => {
        p.meta.labels.app = "x";
      },
      false,
    ],
    [
      "an annotation removed",
      (p) => {
        p.metadata.annotations["a/b"] = null;
      },
      false,
    ],
    [
      "status set to null",
      (p) => {
        p.status = null;
      },
      false,
    ],
    [
      "status set to an empty object",
      (p) => {
        p.status = {};
      },
      false,
    ],
    [
      "labels set to an empty object",
      (p) => {
        p.meta.labels = {};
      },
      false,
    ],
    [
      "an empty object written into spec",
      (p) => {
        p.spec.nested = {};
      },
      false,
    ],
    [
      "an undefined field",
      (p) => {
        p.status.phase = undefined;
      },
      true,
    ],
    [
      "a top-level field",
      (p) => {
        p.data = { a: "1" };
      },
      false,
    ],
    [
      "a top-level undefined field",
      (p) => {
        p.data = undefined;
      },
      true,
    ],
    [
      "metadata deleted, then set as plain data",
      (p) => {
        Reflect.deleteProperty(p, "metadata");
        p.metadata = { labels: {} };
      },
      false,
    ],
    ["status deleted", (p) => void Reflect.deleteProperty(p, "status"), true],
    ["a function", (p) => void p.fns.push(() => {}), false],
  ];
  it.each(cases)("%s", (_, write, expected) => {
    const patch = new Patch({ metadata: { name: "n" } });
    write(patch);
    expect(patch.isEmpty()).toBe(expected);
    expect(patch.isEmpty()).toBe(Object.keys(patch.toMergePatch()).length === 0 && patch.fns.length === 0);
  });
});

describe("a patch read back as JSON", () => {
  const patch = new Patch();
  patch.spec.a = null;
  patch.status.phase = "Ready";

  it("is not a JSON mapping itself: its merge patch is", () => {
    expect(isObject(patch)).toBe(false);
    expect(deepEqual(patch.toMergePatch(), { status: { phase: "Ready" }, spec: { a: null } })).toBe(true);
    expect(FieldPath.resolve(patch.toMergePatch(), ["status", "phase"])).toBe("Ready");
    expect(pyDumps(patch.toMergePatch())).toBe('{"spec":{"a":null},"status":{"phase":"Ready"}}');
    expect(JSON.stringify(patch)).toBe('{"spec":{"a":null},"status":{"phase":"Ready"}}');
  });

  it("applies as a merge patch", () => {
    expect(applyMergePatch({ spec: { a: 1, b: 2 } }, patch.toMergePatch())).toEqual({
      spec: { b: 2 },
      status: { phase: "Ready" },
    });
  });
});

describe("applyMergePatch", () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    ["a new key", { a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    ["a removal", { a: 1, b: 2 }, { a: null }, { b: 2 }],
    ["a removal of an absent key", { a: 1 }, { x: null }, { a: 1 }],
    ["a nested merge", { s: { a: 1, b: 2 } }, { s: { a: null, c: 3 } }, { s: { b: 2, c: 3 } }],
    ["a removal emptying the parent", { xyz: { abc: 456 } }, { xyz: { abc: null } }, {}],
    ["an empty object", { xyz: { abc: 456 } }, { xyz: {} }, { xyz: { abc: 456 } }],
    ["an empty object for a missing key", { a: 1 }, { xyz: {} }, { a: 1 }],
    ["a list replacing a list", { xyz: [1, 2, 3] }, { xyz: [4, 5] }, { xyz: [4, 5] }],
    [
      "a deep new branch",
      { xyz: { uvw: 123 } },
      { xyz: { abc: { def: { ghi: 456 } } } },
      { xyz: { uvw: 123, abc: { def: { ghi: 456 } } } },
    ],
    ["a value through a scalar", { a: "text" }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])("merges %s", (_, body, merge, expected) => {
    const before = structuredClone(body);
    expect(applyMergePatch(body, merge)).toEqual(expected);
    expect(body).toEqual(before);
  });
});

describe("asJsonPatch", () => {
  it("fails without a reference body when not empty", () => {
    const patch = new Patch();
    patch.xyz = 123;
    const failure = failureOf(patch.asJsonPatch());
    expect(failure).toBeInstanceOf(PatchError);
    expect(failure.reason).toBe("NoReference");
    expect(failure.message).toBe("Cannot build a JSON-patch without the original body as a reference.");
  });

  it("gives no ops for an empty patch without a reference", () => {
    expect(opsOf(new Patch())).toEqual([]);
  });

  it("prefers the argument body over the original one", () => {
    const patch = new Patch({ abc: 456 });
    patch.abc = null;
    patch.xyz = 123;
    expect(opsOf(patch, { xyz: 789 })).toEqual([{ op: "replace", path: "/xyz", value: 123 }]);
  });

  // Kopf's tests/basic-structs/test_patch_json.py.
  it.each<[string, RawBody, JsonObject, JsonPatch.JsonPatch]>([
    ["an empty patch", { abc: 456 }, {}, []],
    ["removing an absent key", { abc: 456 }, { xyz: null }, []],
    ["an empty dict", { xyz: { abc: 456 } }, { xyz: {} }, []],
    ["the same value", { xyz: 123 }, { xyz: 123 }, []],
    ["a new key", { abc: 456 }, { xyz: 123 }, [{ op: "add", path: "/xyz", value: 123 }]],
    ["a replaced key", { xyz: 456 }, { xyz: 123 }, [{ op: "replace", path: "/xyz", value: 123 }]],
    ["a removed key", { xyz: 456 }, { xyz: null }, [{ op: "remove", path: "/xyz" }]],
    [
      "a nested new key",
      { xyz: { def: 456 } },
      { xyz: { abc: 123 } },
      [{ op: "add", path: "/xyz/abc", value: 123 }],
    ],
    [
      "a nested replaced key",
      { xyz: { abc: 456 } },
      { xyz: { abc: 123 } },
      [{ op: "replace", path: "/xyz/abc", value: 123 }],
    ],
    ["a new dict", {}, { xyz: { abc: 123 } }, [{ op: "add", path: "/xyz", value: { abc: 123 } }]],
    [
      "a deep new dict",
      { xyz: { uvw: 123 } },
      { xyz: { abc: { def: { ghi: 456 } } } },
      [{ op: "add", path: "/xyz/abc", value: { def: { ghi: 456 } } }],
    ],
    [
      "a nested removal",
      { xyz: { abc: 456, other: "x" } },
      { xyz: { abc: null } },
      [{ op: "remove", path: "/xyz/abc" }],
    ],
    [
      "a removal emptying its parent",
      { xyz: { abc: 456 } },
      { xyz: { abc: null } },
      [{ op: "remove", path: "/xyz" }],
    ],
    ["a new list", { abc: 456 }, { xyz: [1, 2, 3] }, [{ op: "add", path: "/xyz", value: [1, 2, 3] }]],
    [
      "a replaced list",
      { xyz: [1, 2, 3] },
      { xyz: [4, 5] },
      [
        { op: "replace", path: "/xyz/0", value: 4 },
        { op: "replace", path: "/xyz/1", value: 5 },
        { op: "remove", path: "/xyz/2" },
      ],
    ],
    [
      "mixed changes",
      { existing: 1, toremove: 2 },
      { existing: 99, toremove: null, newkey: "hello" },
      [
        { op: "remove", path: "/toremove" },
        { op: "add", path: "/newkey", value: "hello" },
        { op: "replace", path: "/existing", value: 99 },
      ],
    ],
    [
      "escaped keys",
      { "~xyz/test": { abc: 1, other: 2 } },
      { "~xyz/test": { abc: null } },
      [{ op: "remove", path: "/~0xyz~1test/abc" }],
    ],
    [
      "escaped nested keys",
      { "x/y/~z": { "a/b/~0c": 1, other: 2 } },
      { "x/y/~z": { "a/b/~0c": null } },
      [{ op: "remove", path: "/x~1y~1~0z/a~1b~1~00c" }],
    ],
  ])("builds ops for %s", (_, body, merge, expected) => {
    const before = structuredClone(body);
    const patch = new Patch(body, { mergePatch: merge });
    expect(opsOf(patch)).toEqual(expected);
    expect(body).toEqual(before);
  });

  it("applies fns to a copy after the merge patch", () => {
    const body = { xyz: 100, items: [1, 2] };
    const patch = new Patch(body);
    patch.xyz = 200;
    patch.fns.push((b) => {
      b.xyz += 1;
    });
    patch.fns.push((b) => {
      b.items.push(3);
    });
    expect(opsOf(patch)).toEqual([
      { op: "add", path: "/items/2", value: 3 },
      { op: "replace", path: "/xyz", value: 201 },
    ]);
    expect(body).toEqual({ xyz: 100, items: [1, 2] });
  });

  it("never lets fns mutate the patch's own values", () => {
    const patch = new Patch({});
    patch.spec = { items: [1] };
    patch.fns.push((b) => {
      b.spec!.items.push(2);
    });
    expect(opsOf(patch)).toEqual([{ op: "add", path: "/spec", value: { items: [1, 2] } }]);
    expect(patch.toMergePatch()).toEqual({ spec: { items: [1] } });
  });

  it("reports a failing fn as an error", () => {
    const patch = new Patch({});
    patch.fns.push(function broken(_: MutableBody) {
      throw new Error("boom");
    });
    const failure = failureOf(patch.asJsonPatch());
    expect(failure.reason).toBe("FnFailed");
    expect(failure.message).toBe("Patch function #0 (broken) failed: Error: boom");
  });

  // `__proto__` keys are left to their own test below: JSON patches cannot add them safely, so
  // applying such ops fails by design (fast-json-patch refuses prototype modifications).
  const json = fc
    .jsonValue({ maxDepth: 3 })
    .filter((value) => !JSON.stringify(value).includes('"__proto__"'));
  const body = fc.dictionary(
    fc.constantFrom("a", "b", "c", "~/x"),
    fc.oneof(json, fc.dictionary(fc.constantFrom("a", "b", "c"), json)),
  );
  const merge = fc.dictionary(
    fc.constantFrom("a", "b", "c", "~/x"),
    fc.oneof(
      fc.constant(null),
      json,
      fc.dictionary(fc.constantFrom("a", "b", "c"), fc.oneof(fc.constant(null), json)),
    ),
  );

  it("refuses to apply ops that would write a __proto__ key, instead of polluting prototypes", () => {
    const patch = new Patch({ b: {} } as RawBody, { mergePatch: JSON.parse('{"b":{"__proto__":false}}') });
    const ops = opsOf(patch);
    const applied = JsonPatch.apply({ b: {} }, ops);
    expect(Result.isFailure(applied)).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("gives ops that, applied to the body, equal applying the merge patch and fns", () => {
    fc.assert(
      fc.property(body, merge, fc.boolean(), (b, m, withFn) => {
        const patch = new Patch(b as RawBody, { mergePatch: m as JsonObject });
        const fn: PatchFn = (x) => {
          x.extra = [...(Array.isArray(x.extra) ? x.extra : []), "item"];
        };
        if (withFn) patch.fns.push(fn);
        const expected = structuredClone(applyMergePatch(b, m as JsonObject)) as MutableBody;
        if (withFn) fn(expected);
        const ops = opsOf(patch);
        expect(Result.getOrThrow(JsonPatch.apply(b, ops))).toEqual(expected);
      }),
    );
  });
});

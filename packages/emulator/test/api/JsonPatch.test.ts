// Covers JSON patch as kube-apiserver applies it (evanphx/json-patch v4.12.0): the failure texts
// the real v1.34.4 answered when a mutating webhook's patch failed (the table's first rows were
// observed on it), and the library's semantics the emulator must share: replace of a missing
// object key sets it, copy of a missing key copies null, negative indices count from the end,
// a failed patch leaves the document untouched, and (json-patch v4.13.0, Kubernetes v1.36) a root
// replace with a scalar fails.
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as JsonPatch from "../../src/api/JsonPatch.ts";

const doc = { metadata: { name: "bp", finalizers: ["a", "b"] }, data: { key: "value" } };

const failure = (ops: ReadonlyArray<JsonPatch.Operation>, target: unknown = doc) => {
  const r = JsonPatch.apply(target, ops);
  return Result.isFailure(r) ? r.failure : undefined;
};
const success = (ops: ReadonlyArray<JsonPatch.Operation>, target: unknown = doc) => {
  const r = JsonPatch.apply(target, ops);
  return Result.isSuccess(r) ? r.success : `failed: ${r.failure}`;
};

describe("JsonPatch.apply failure texts", () => {
  it.each<{ ops: ReadonlyArray<JsonPatch.Operation>; message: string }>([
    // Seen on kube-apiserver v1.34.4 (after "Internal error occurred: ").
    {
      ops: [{ op: "replace", path: "/metadata/nothing/x", value: "x" }],
      message: "replace operation does not apply: doc is missing path: /metadata/nothing/x: missing value",
    },
    {
      ops: [{ op: "remove", path: "/data/nothing" }],
      message:
        "error in remove for path: '/data/nothing': Unable to remove nonexistent key: nothing: missing value",
    },
    {
      ops: [{ op: "add", path: "/nothing/x", value: 1 }],
      message: 'add operation does not apply: doc is missing path: "/nothing/x": missing value',
    },
    {
      ops: [{ op: "test", path: "/data/key", value: "other" }],
      message: "testing value /data/key failed: test failed",
    },
    {
      ops: [{ op: "move", from: "/data/nothing", path: "/data/x" }],
      message: "error in move for path: 'nothing': Unable to remove nonexistent key: nothing: missing value",
    },
    {
      ops: [{ op: "add", path: "/metadata/finalizers/5", value: "b" }],
      message:
        "error in add for path: '/metadata/finalizers/5': Unable to access invalid index: 5: invalid index referenced",
    },
    { ops: [{ op: "frob", path: "/data" }], message: "Unexpected kind: frob" },
    // The library's other texts.
    {
      ops: [{ op: "remove", path: "/metadata/finalizers/x" }],
      message: `error in remove for path: '/metadata/finalizers/x': strconv.Atoi: parsing "x": invalid syntax`,
    },
    {
      ops: [{ op: "add", path: "/metadata/finalizers/x", value: "c" }],
      message: `error in add for path: '/metadata/finalizers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    },
    {
      ops: [{ op: "replace", path: "/metadata/finalizers/2", value: "c" }],
      message: "replace operation does not apply: doc is missing key: /metadata/finalizers/2: missing value",
    },
    {
      ops: [{ op: "remove", path: "/metadata/finalizers/-3" }],
      message:
        "error in remove for path: '/metadata/finalizers/-3': Unable to access invalid index: -3: invalid index referenced",
    },
    { ops: [{ op: "add", value: 1 }], message: "add operation failed to decode path: missing value" },
    {
      ops: [{ op: "replace", value: 1 }],
      message: "replace operation failed to decode path: operation missing path field: missing value",
    },
    {
      ops: [{ op: "test", path: 7, value: 1 }],
      message:
        "test operation failed to decode path: json: cannot unmarshal number into Go value of type string",
    },
    {
      ops: [{ op: "move", path: "/data/x" }],
      message: "move operation failed to decode from: operation, missing from field: missing value",
    },
    {
      ops: [{ op: "copy", from: "/nothing/deeper", path: "/data/x" }],
      message: "copy operation does not apply: doc is missing from path: /nothing/deeper: missing value",
    },
    {
      ops: [{ op: "copy", from: "/data/key", path: "/nothing/x" }],
      message: "copy operation does not apply: doc is missing destination path: /nothing/x: missing value",
    },
    {
      ops: [{ op: "test", path: "/data/missing/deeper", value: 1 }],
      message: "test operation does not apply: is missing path: /data/missing/deeper: missing value",
    },
    { ops: [{ op: "test", path: "", value: {} }], message: "testing value  failed: test failed" },
    { ops: [{ op: "unknown", path: "/data" }], message: "Unexpected kind: unknown" },
    {
      // gopkg.in/evanphx/json-patch.v4@v4.13.0 patch.go: replace wraps a nil error here.
      ops: [{ op: "replace", path: "", value: 5 }],
      message: "replace operation value must be object or array: %!w(<nil>)",
    },
  ])("$message", ({ ops, message }) => {
    expect(failure(ops)).toBe(message);
  });
});

describe("JsonPatch.apply semantics", () => {
  it.each<{ name: string; ops: ReadonlyArray<JsonPatch.Operation>; expected: unknown }>([
    {
      name: "replace of a missing object key sets it (201 on the real server)",
      ops: [{ op: "replace", path: "/data/nothing", value: "x" }],
      expected: { ...doc, data: { key: "value", nothing: "x" } },
    },
    {
      name: "copy of a missing key copies null (201 on the real server)",
      ops: [{ op: "copy", from: "/data/nothing", path: "/data/x" }],
      expected: { ...doc, data: { key: "value", x: null } },
    },
    {
      name: "a negative index counts from the end (the real server removed the last finalizer)",
      ops: [{ op: "remove", path: "/metadata/finalizers/-1" }],
      expected: { ...doc, metadata: { name: "bp", finalizers: ["a"] } },
    },
    {
      name: "add at -1 inserts before the end of the grown array",
      ops: [{ op: "add", path: "/metadata/finalizers/-1", value: "c" }],
      expected: { ...doc, metadata: { name: "bp", finalizers: ["a", "b", "c"] } },
    },
    {
      name: "a root replace with an object replaces the document",
      ops: [{ op: "replace", path: "", value: { a: 1 } }],
      expected: { a: 1 },
    },
    {
      name: "add without a value adds null",
      ops: [{ op: "add", path: "/data/n" }],
      expected: { ...doc, data: { key: "value", n: null } },
    },
    {
      name: "test of a missing key passes for null",
      ops: [{ op: "test", path: "/data/missing", value: null }],
      expected: doc,
    },
    {
      name: "~1 and ~0 unescape in keys",
      ops: [{ op: "add", path: "/data/a~1b~0c", value: "1" }],
      expected: { ...doc, data: { key: "value", "a/b~c": "1" } },
    },
    {
      name: "move takes the value out and puts it elsewhere",
      ops: [{ op: "move", from: "/data/key", path: "/metadata/moved" }],
      expected: { metadata: { name: "bp", finalizers: ["a", "b"], moved: "value" }, data: {} },
    },
  ])("$name", ({ ops, expected }) => {
    expect(success(ops)).toEqual(expected);
  });

  it("never changes the document it is given, whether the patch applies or fails", () => {
    const op = fc.record({
      op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test"),
      path: fc.constantFrom(
        "/data/key",
        "/data/x",
        "/metadata/finalizers/0",
        "/metadata/finalizers/-1",
        "/nothing/x",
      ),
      from: fc.constantFrom("/data/key", "/metadata/finalizers/1", "/nothing"),
      value: fc.jsonValue(),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 6 }), (ops) => {
        const before = structuredClone(doc);
        JsonPatch.apply(doc, ops);
        expect(doc).toEqual(before);
      }),
    );
  });

  it("copies on write: a frozen document patches as its deep copy does, and is never written", () => {
    const nested = {
      metadata: { name: "bp", labels: { a: "1" }, finalizers: ["a", "b"], managedFields: [{ manager: "m" }] },
      spec: { list: [{ x: 1 }, { x: 2 }], inner: { deep: { y: 1 } } },
    };
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === "object" && value !== null) {
        for (const child of Object.values(value)) deepFreeze(child);
        Object.freeze(value);
      }
      return value;
    };
    const frozen = deepFreeze(structuredClone(nested));
    const paths = [
      "/metadata/labels/a",
      "/metadata/labels/b",
      "/metadata/finalizers/0",
      "/metadata/finalizers/-",
      "/spec/list/1/x",
      "/spec/list/0",
      "/spec/inner/deep/y",
      "/spec/inner/deep",
      "/spec/moved",
      "/spec/moved/y",
      "/nothing/x",
    ];
    const op = fc.record({
      op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test"),
      path: fc.constantFrom(...paths),
      from: fc.constantFrom(...paths),
      value: fc.jsonValue({ maxDepth: 2 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
        // A write into the frozen document (or into a part shared with it) throws here.
        const shared = JsonPatch.apply(frozen, ops);
        expect(shared).toEqual(JsonPatch.apply(structuredClone(nested), ops));
        expect(frozen).toEqual(nested);
      }),
    );
  });

  it("shares what no operation touched with the document given", () => {
    const current = {
      metadata: { name: "bp", managedFields: [{ manager: "m" }] },
      spec: { a: 1, b: { c: 2 } },
    };
    const patched = success([{ op: "replace", path: "/spec/a", value: 5 }], current) as typeof current;
    expect(patched).toEqual({ ...current, spec: { a: 5, b: { c: 2 } } });
    expect(patched.metadata).toBe(current.metadata);
    expect(patched.spec.b).toBe(current.spec.b);
    expect(patched.spec).not.toBe(current.spec);
    expect(current.spec.a).toBe(1);
  });

  it("treats a __proto__ key as a field like any other, never as the prototype", () => {
    const current = JSON.parse('{"a":{"__proto__":{"x":1}},"b":{}}') as Record<string, object>;
    const patched = success(
      [
        { op: "replace", path: "/a/__proto__/x", value: 2 },
        { op: "add", path: "/b/__proto__", value: { y: 3 } },
      ],
      current,
    ) as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(patched)).toBe('{"a":{"__proto__":{"x":2}},"b":{"__proto__":{"y":3}}}');
    for (const field of ["a", "b"] as const) {
      expect(Object.getPrototypeOf(patched[field])).toBe(Object.prototype);
      expect(Object.hasOwn(patched[field] as object, "__proto__")).toBe(true);
    }
    expect(JSON.stringify(current)).toBe('{"a":{"__proto__":{"x":1}},"b":{}}');
  });

  it("decodes a PATCH body's operations, reading a non-string op as unknown", () => {
    expect(JsonPatch.decodeOperations([{ op: 5, path: "/a" }, null])).toEqual(
      Result.succeed([{ op: "unknown", path: "/a" }, { op: "unknown" }]),
    );
  });
});

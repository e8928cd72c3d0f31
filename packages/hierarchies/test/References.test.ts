/**
 * Object and owner references (docs/behaviour/hierarchies.md): the fields kept and dropped, the controller and
 * block-owner-deletion flags, appending once per owner uid and removing by uid, over single
 * objects, nested arrays, sets and generators, and for model-class instances.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import { References } from "../src/index.ts";
import { assertThrowsHierarchy } from "./fixtures.ts";

const owner = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "owner", namespace: "ns1", uid: "uid-1", labels: { app: "x" } },
};

describe("buildObjectReference", () => {
  it.each([
    [
      owner,
      { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "owner", uid: "uid-1", namespace: "ns1" },
    ],
    [
      { kind: "Node", metadata: { name: "n1" } },
      { kind: "Node", name: "n1" },
    ],
    [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns", namespace: "" } },
      { apiVersion: "v1", kind: "Namespace", name: "ns" },
    ],
    [{}, {}],
  ])("%j ⇒ %j", (body, expected) => {
    assert.deepStrictEqual(References.buildObjectReference(body), expected);
  });
});

describe("buildOwnerReference", () => {
  const base = { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "owner", uid: "uid-1" };
  it.each([
    [{}, { controller: true, blockOwnerDeletion: true }],
    [{ controller: false }, { controller: false, blockOwnerDeletion: true }],
    [{ blockOwnerDeletion: false }, { controller: true, blockOwnerDeletion: false }],
    [{ controller: null, blockOwnerDeletion: null }, {}],
  ])("options %j ⇒ flags %j and no namespace", (options, flags) => {
    assert.deepStrictEqual(References.buildOwnerReference(owner, options), { ...flags, ...base });
  });

  it("drops absent fields", () => {
    assert.deepStrictEqual(References.buildOwnerReference({ kind: "Node", metadata: { name: "n" } }), {
      controller: true,
      blockOwnerDeletion: true,
      kind: "Node",
      name: "n",
    });
  });
});

class ModelMeta {
  name?: string;
  ownerReferences?: Array<Record<string, unknown>>;
}
class Model {
  apiVersion = "v1";
  kind = "Pod";
  metadata?: ModelMeta;
}

describe("appendOwnerReference / removeOwnerReference", () => {
  const shapes: ReadonlyArray<[string, (a: object, b: object) => unknown]> = [
    ["array", (a, b) => [a, b]],
    ["nested arrays", (a, b) => [[a], [[b]]]],
    ["set", (a, b) => new Set([a, b])],
    [
      "generator",
      (a, b) =>
        (function* () {
          yield a;
          yield b;
        })(),
    ],
  ];

  it.each(shapes)("appends once per uid over %s", (_, wrap) => {
    const a: any = {};
    const b: any = { metadata: { ownerReferences: [{ uid: "other" }] } };
    References.appendOwnerReference(wrap(a, b), owner);
    References.appendOwnerReference([a, b], owner);
    assert.deepStrictEqual(
      a.metadata.ownerReferences.map((r: any) => r.uid),
      ["uid-1"],
    );
    assert.deepStrictEqual(
      b.metadata.ownerReferences.map((r: any) => r.uid),
      ["other", "uid-1"],
    );
    assert.deepStrictEqual(a.metadata.ownerReferences[0], References.buildOwnerReference(owner));
  });

  it("passes the flags into the appended reference", () => {
    const obj: any = {};
    References.appendOwnerReference(obj, owner, { controller: false, blockOwnerDeletion: false });
    assert.strictEqual(obj.metadata.ownerReferences[0].controller, false);
    assert.strictEqual(obj.metadata.ownerReferences[0].blockOwnerDeletion, false);
  });

  it("removes only the owner's references, keeping the array", () => {
    const obj: any = {
      metadata: { ownerReferences: [{ uid: "other" }, { uid: "uid-1" }, { uid: "uid-1" }] },
    };
    const refs = obj.metadata.ownerReferences;
    References.removeOwnerReference(obj, owner);
    assert.strictEqual(obj.metadata.ownerReferences, refs);
    assert.deepStrictEqual(refs, [{ uid: "other" }]);
    const bare: any = {};
    References.removeOwnerReference(bare, owner);
    assert.deepStrictEqual(bare.metadata.ownerReferences, []);
  });

  it("works on model-class instances without metadata", () => {
    const model = new Model();
    References.appendOwnerReference(model, owner);
    assert.strictEqual(model.metadata?.ownerReferences?.[0]?.uid, "uid-1");
    References.removeOwnerReference(model, owner);
    assert.deepStrictEqual(model.metadata?.ownerReferences, []);
  });

  it.each([
    ["a string", "pod"],
    ["a number", 5],
    ["a boolean inside an array", [{}, true]],
  ])("rejects %s with a NotAnObject error", (_, value) => {
    assertThrowsHierarchy(() => References.appendOwnerReference(value, owner), "NotAnObject");
  });

  it("ignores null and undefined (nothing to do)", () => {
    References.appendOwnerReference(null, owner);
    References.appendOwnerReference([undefined, null], owner);
  });

  it("property: append is idempotent and remove undoes it", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 5 }), fc.string({ minLength: 1 }), (uids, uid) => {
        const obj: any = { metadata: { ownerReferences: uids.map((u) => ({ uid: u })) } };
        const parent = { kind: "K", metadata: { name: "p", uid } };
        References.appendOwnerReference(obj, parent);
        References.appendOwnerReference(obj, parent);
        const count = obj.metadata.ownerReferences.filter((r: any) => r.uid === uid).length;
        References.removeOwnerReference(obj, parent);
        return (
          count === Math.max(1, uids.filter((u) => u === uid).length) &&
          obj.metadata.ownerReferences.every((r: any) => r.uid !== uid)
        );
      }),
    );
  });
});

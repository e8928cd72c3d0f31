/**
 * The hierarchies kit (spec §14): object and owner references, appending/removing owner
 * references without duplicates, labels (forced, nested), naming (generateName, strict, forced),
 * namespaces, and adopt's combination, over single objects and nested arrays.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as kopf from "../src/index.ts";

const owner = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kopf-example-1", namespace: "ns1", uid: "uid-1", labels: { app: "x", tier: "y" } },
};

describe("references", () => {
  it("builds object references without empty fields", () => {
    assert.deepStrictEqual(kopf.buildObjectReference(owner), {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      name: "kopf-example-1",
      uid: "uid-1",
      namespace: "ns1",
    });
    assert.deepStrictEqual(kopf.buildObjectReference({ kind: "Node", metadata: { name: "n" } }), {
      kind: "Node",
      name: "n",
    });
  });

  it.each([
    [{}, { controller: true, blockOwnerDeletion: true }],
    [{ controller: false }, { controller: false, blockOwnerDeletion: true }],
    [{ blockOwnerDeletion: false }, { controller: true, blockOwnerDeletion: false }],
  ])("builds owner references with options %j", (options, flags) => {
    assert.deepStrictEqual(kopf.buildOwnerReference(owner, options), {
      ...flags,
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      name: "kopf-example-1",
      uid: "uid-1",
    });
  });

  it("appends once per owner uid and removes by uid, in nested arrays", () => {
    const a: kopf.Obj = {};
    const b: kopf.Obj = { metadata: { ownerReferences: [{ uid: "other" }] } };
    kopf.appendOwnerReference([a, [b]], owner);
    kopf.appendOwnerReference([a, [b]], owner);
    assert.deepStrictEqual(
      a.metadata.ownerReferences.map((r: kopf.Obj) => r.uid),
      ["uid-1"],
    );
    assert.deepStrictEqual(
      b.metadata.ownerReferences.map((r: kopf.Obj) => r.uid),
      ["other", "uid-1"],
    );
    kopf.removeOwnerReference([a, b], owner);
    assert.deepStrictEqual(a.metadata.ownerReferences, []);
    assert.deepStrictEqual(b.metadata.ownerReferences, [{ uid: "other" }]);
  });
});

describe("labels", () => {
  it.each([
    [false, { app: "mine", tier: "y" }],
    [true, { app: "x", tier: "y" }],
  ])("forced=%s sets missing labels only unless forced", (forced, expected) => {
    const obj: kopf.Obj = { metadata: { labels: { app: "mine" } } };
    kopf.label(obj, owner.metadata.labels, { forced });
    assert.deepStrictEqual(obj.metadata.labels, expected);
  });

  it("labels nested templates and skips missing paths", () => {
    const obj: kopf.Obj = { spec: { template: {} } };
    kopf.label(obj, { a: "b" }, { nested: ["spec.template", "spec.jobTemplate"] });
    assert.deepStrictEqual(obj.spec.template.metadata.labels, { a: "b" });
    assert.isUndefined(obj.spec.jobTemplate);
  });
});

describe("naming and namespaces", () => {
  it.each([
    [{}, {}, { generateName: "kopf-example-1-" }],
    [{ name: "mine" }, {}, { name: "mine" }],
    [{ generateName: "g-" }, {}, { generateName: "g-" }],
    [{}, { strict: true }, { name: "kopf-example-1" }],
    [{ name: "mine" }, { forced: true }, { generateName: "kopf-example-1-" }],
    [{ generateName: "g-" }, { forced: true, strict: true }, { name: "kopf-example-1" }],
  ])("metadata %j with %j becomes %j", (meta, options, expected) => {
    const obj: kopf.Obj = { metadata: { ...meta } };
    kopf.harmonizeNaming(obj, "kopf-example-1", options);
    assert.deepStrictEqual(obj.metadata, expected);
  });

  it("refuses to name without a name", () => {
    assert.throws(
      () => kopf.harmonizeNaming({}, undefined),
      kopf.HierarchyError,
      "Name must be set explicitly",
    );
  });

  it("refuses non-objects", () => {
    assert.throws(() => kopf.label(["text" as never], {}), kopf.HierarchyError, "Only objects");
  });

  it.each([
    [undefined, false, "ns1"],
    [null, false, "ns1"],
    ["mine", false, "mine"],
    ["mine", true, "ns1"],
  ])("namespace %j (forced=%s) becomes %j", (namespace, forced, expected) => {
    const obj: kopf.Obj = { metadata: namespace === undefined ? {} : { namespace } };
    kopf.adjustNamespace(obj, "ns1", { forced });
    assert.strictEqual(obj.metadata.namespace, expected);
  });
});

describe("adopt", () => {
  it("adds the owner reference, a derived name, the namespace and the labels", () => {
    const pod: kopf.Obj = { apiVersion: "v1", kind: "Pod", spec: {} };
    kopf.adopt(pod, owner);
    assert.deepStrictEqual(pod.metadata, {
      ownerReferences: [kopf.buildOwnerReference(owner)],
      generateName: "kopf-example-1-",
      namespace: "ns1",
      labels: { app: "x", tier: "y" },
    });
  });

  it("property: adopting twice changes nothing more", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string()), (labels) => {
        const obj: kopf.Obj = { metadata: { labels: { ...labels } } };
        kopf.adopt(obj, owner);
        const once = JSON.stringify(obj);
        kopf.adopt(obj, owner);
        return JSON.stringify(obj) === once;
      }),
    );
  });
});

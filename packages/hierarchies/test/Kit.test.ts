/**
 * The kit with Kopf's defaults (docs/behaviour/hierarchies.md): adopt's combination (reference, naming, namespace,
 * labels; forced/strict/nested), the owner taken from the current handler through a bound
 * source, and Kopf's errors outside a handler.
 */
import { assert, describe, it } from "@effect/vitest";
import { adopt, Kit, label } from "../src/index.ts";
import { assertThrowsHierarchy } from "./fixtures.ts";

const owner = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "owner", namespace: "ns1", uid: "uid-1", labels: { app: "x" } },
};

describe("adopt", () => {
  it("sets the owner reference, generateName, namespace and the owner's labels", () => {
    const child: any = { apiVersion: "v1", kind: "Pod", spec: { template: {} } };
    adopt(child, owner, { nested: "spec.template" });
    assert.deepStrictEqual(child.metadata, {
      ownerReferences: [
        {
          controller: true,
          blockOwnerDeletion: true,
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          name: "owner",
          uid: "uid-1",
        },
      ],
      generateName: "owner-",
      namespace: "ns1",
      labels: { app: "x" },
    });
    assert.deepStrictEqual(child.spec.template.metadata.labels, { app: "x" });
  });

  it.each([
    [{}, { name: "mine", namespace: "own", labels: { app: "mine" } }],
    [{ forced: true }, { generateName: "owner-", namespace: "ns1", labels: { app: "x" } }],
    [
      { forced: true, strict: true },
      { name: "owner", namespace: "ns1", labels: { app: "x" } },
    ],
  ])("with %j keeps or overwrites ⇒ %j", (options, expected) => {
    const child: any = { metadata: { name: "mine", namespace: "own", labels: { app: "mine" } } };
    adopt(child, owner, options);
    const { ownerReferences, ...rest } = child.metadata;
    assert.deepStrictEqual(rest, expected);
    assert.strictEqual(ownerReferences.length, 1);
  });

  it("sets a null namespace for cluster-scoped owners (Kopf's behaviour)", () => {
    const child: any = {};
    adopt(child, { kind: "ClusterThing", metadata: { name: "c", uid: "u" } });
    assert.strictEqual(child.metadata.namespace, null);
  });

  it("fails on an owner without a name", () => {
    assertThrowsHierarchy(() => adopt({}, { kind: "K", metadata: { uid: "u" } }), "NoName");
  });
});

describe("the owner from the current handler", () => {
  it("is used by every function of a bound kit when no owner is given", () => {
    let current: typeof owner | undefined = owner;
    const kit = Kit.bind(() => current);
    const child: any = {};
    kit.adopt(child);
    assert.strictEqual(child.metadata.ownerReferences[0].uid, "uid-1");
    const other: any = {};
    kit.label(other);
    kit.harmonizeNaming(other, undefined, { strict: true });
    kit.adjustNamespace(other);
    assert.deepStrictEqual(other.metadata, { labels: { app: "x" }, name: "owner", namespace: "ns1" });
    assert.deepStrictEqual(kit.buildObjectReference(), {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      name: "owner",
      uid: "uid-1",
      namespace: "ns1",
    });
    kit.removeOwnerReference(child);
    assert.deepStrictEqual(child.metadata.ownerReferences, []);
    current = undefined;
    assertThrowsHierarchy(() => kit.adopt({}), "NoOwner");
  });

  it("an explicit owner wins over the current one; explicit labels/name/namespace need no owner", () => {
    const kit = Kit.bind(() => owner);
    const child: any = {};
    kit.adopt(child, { kind: "K", metadata: { name: "explicit", uid: "u2" } });
    assert.strictEqual(child.metadata.ownerReferences[0].uid, "u2");
    assert.strictEqual(child.metadata.generateName, "explicit-");
    const free: any = {};
    label(free, { a: "b" });
    assert.deepStrictEqual(free.metadata.labels, { a: "b" });
  });

  it.each([
    ["adopt", () => adopt({})],
    ["label", () => label({})],
    ["harmonizeNaming", () => Kit.explicit.harmonizeNaming({})],
    ["adjustNamespace", () => Kit.explicit.adjustNamespace({})],
    ["appendOwnerReference", () => Kit.explicit.appendOwnerReference({})],
  ])("%s outside a handler fails with Kopf's message", (_, call) => {
    assertThrowsHierarchy(
      call,
      "NoOwner",
      "Owner must be set explicitly, since running outside of a handler.",
    );
  });
});

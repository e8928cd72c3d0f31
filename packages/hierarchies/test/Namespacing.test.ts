/**
 * Namespaces (docs/behaviour/hierarchies.md): set when absent or null, kept otherwise unless forced; a null
 * namespace (cluster-scoped owners) is set as null, as in Kopf.
 */
import { assert, describe, it } from "@effect/vitest";
import { Namespacing } from "../src/index.ts";

describe("adjustNamespace", () => {
  it.each([
    [{}, {}, "ns1"],
    [{ metadata: {} }, {}, "ns1"],
    [{ metadata: { namespace: null } }, {}, "ns1"],
    [{ metadata: { namespace: "own" } }, {}, "own"],
    [{ metadata: { namespace: "own" } }, { forced: false }, "own"],
    [{ metadata: { namespace: "own" } }, { forced: true }, "ns1"],
  ])("%j with %j ⇒ %j", (obj, options, expected) => {
    const copy: any = structuredClone(obj);
    Namespacing.adjustNamespace([copy], "ns1", options);
    assert.strictEqual(copy.metadata.namespace, expected);
  });

  it.each([null, undefined])("sets null for cluster-scoped owners (%j)", (namespace) => {
    const obj: any = {};
    Namespacing.adjustNamespace(obj, namespace);
    assert.strictEqual(obj.metadata.namespace, null);
  });
});

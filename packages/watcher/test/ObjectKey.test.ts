// Covers the per-object demultiplexing keys (docs/behaviour/watching.md#queues): uid when present, else Kopf's synthetic
// kind//apiVersion//name//namespace//creationTimestamp key with "-" for missing parts; scoping by
// resource; resourceVersion extraction.

import { assert, describe, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import fc from "fast-check";
import * as ObjectKey from "../src/ObjectKey.ts";

describe("ObjectKey.of", () => {
  it.each([
    ["the uid when present", { kind: "K", metadata: { uid: "u1", name: "n" } }, "u1"],
    ["an empty uid is still the uid", { metadata: { uid: "" } }, ""],
    [
      "a synthetic key without a uid",
      {
        kind: "ComponentStatus",
        apiVersion: "v1",
        metadata: { name: "etcd-0", namespace: "ns", creationTimestamp: "t" },
      },
      "ComponentStatus//v1//etcd-0//ns//t",
    ],
    [
      "dashes for missing parts",
      { kind: "ComponentStatus", metadata: { name: "etcd-0", creationTimestamp: null } },
      "ComponentStatus//-//etcd-0//-//-",
    ],
    ["all dashes for an empty body", {}, "-//-//-//-//-"],
  ] as ReadonlyArray<[string, RawBody, string]>)("%s", (_name, body, expected) => {
    assert.strictEqual(ObjectKey.of(body), expected);
  });

  it("distinct uids give distinct keys; the same uid the same key", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.string(), (a, b, name) => {
        const ka = ObjectKey.of({ metadata: { uid: a, name } });
        const kb = ObjectKey.of({ metadata: { uid: b, name } });
        return (a === b) === (ka === kb);
      }),
    );
  });
});

describe("ObjectKey.scoped and versionOf", () => {
  it("scopes keys by resource", () => {
    const body: RawBody = { metadata: { uid: "u1", resourceVersion: "42" } };
    assert.strictEqual(ObjectKey.scoped("kopfexamples.v1.kopf.dev", body), "kopfexamples.v1.kopf.dev/u1");
    assert.notStrictEqual(ObjectKey.scoped("a.v1", body), ObjectKey.scoped("a.v2", body));
    assert.strictEqual(ObjectKey.versionOf(body), "42");
    assert.isUndefined(ObjectKey.versionOf({}));
  });
});

/** AdmissionReview decoding: valid reviews of both versions, and a named error for every malformed one. */
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import { Review } from "../src/index.ts";
import { review } from "./fixtures/reviews.ts";

describe("Review.decode", () => {
  it.each(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"])("accepts %s", (apiVersion) => {
    const decoded = Review.decode(review({}, { apiVersion }));
    assert.isTrue(Result.isSuccess(decoded));
    if (Result.isFailure(decoded)) return;
    assert.strictEqual(decoded.success.apiVersion, apiVersion);
    assert.strictEqual(decoded.success.request.uid, "uid1");
    assert.strictEqual(decoded.success.request.operation, "CREATE");
    assert.deepStrictEqual(decoded.success.request.resource, {
      group: "kopf.dev",
      version: "v1",
      resource: "kopfexamples",
    });
    assert.strictEqual(decoded.success.request.subResource, undefined);
    assert.strictEqual(decoded.success.request.oldObject, undefined);
    assert.strictEqual(decoded.success.request.dryRun, false);
  });

  it("keeps the subresource, dry-run flag and both bodies", () => {
    const decoded = Review.decode(
      review({ subResource: "status", dryRun: true, operation: "UPDATE", oldObject: { spec: {} } }),
    );
    assert.isTrue(Result.isSuccess(decoded));
    if (Result.isFailure(decoded)) return;
    assert.strictEqual(decoded.success.request.subResource, "status");
    assert.isTrue(decoded.success.request.dryRun);
    assert.deepStrictEqual(decoded.success.request.oldObject, { spec: {} });
  });

  it.each([
    ["a string", "hello", "NotAnObject", "must be a JSON object; got a string"],
    ["null", null, "NotAnObject", "got null"],
    ["an array", [1], "NotAnObject", "got an array"],
    ["another kind", review({}, { kind: "Pod" }), "NotAReview", 'kind: expected AdmissionReview; got "Pod"'],
    [
      "another version",
      review({}, { apiVersion: "admission.k8s.io/v2" }),
      "UnsupportedVersion",
      '"admission.k8s.io/v2"',
    ],
    [
      "no request",
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      "MissingRequest",
      "request is missing from the AdmissionReview",
    ],
    ["no uid", review({ uid: undefined }), "InvalidField", "request.uid is missing"],
    ["an empty uid", review({ uid: "" }), "InvalidField", 'request.uid: expected a non-empty string; got ""'],
    ["a numeric uid", review({ uid: 123 }), "InvalidField", "got 123"],
    ["a bad operation", review({ operation: "PATCH" }), "InvalidField", "request.operation"],
    ["no userInfo", review({ userInfo: undefined }), "MissingUserInfo", "request.userInfo is missing"],
    ["a list as userInfo", review({ userInfo: [] }), "MissingUserInfo", "got an array of 0 items"],
    ["no resource", review({ resource: undefined }), "InvalidField", "request.resource"],
    ["a partial resource", review({ resource: { group: "" } }), "InvalidField", "request.resource.version"],
    [
      "no bodies",
      review({ object: null, oldObject: null }),
      "MissingObject",
      "Either old or new object is missing",
    ],
    ["a scalar object", review({ object: 5 }), "InvalidField", "request.object: expected an object; got 5"],
    ["a numeric subresource", review({ subResource: 1 }), "InvalidField", "request.subResource"],
    [
      "a string dryRun",
      review({ dryRun: "yes" }),
      "InvalidField",
      'request.dryRun: expected a boolean; got "yes"',
    ],
    [
      "a huge non-string name",
      review({ name: ["x".repeat(1_000_000)] }),
      "InvalidField",
      "request.name: expected a string; got an array of 1 item.",
    ],
    [
      "a huge wrong kind",
      review({}, { kind: "K".repeat(1_000_000) }),
      "NotAReview",
      "…[truncated, 1000000 characters]",
    ],
  ] as const)("rejects %s", (_name, document, reason, text) => {
    const decoded = Review.decode(JSON.parse(JSON.stringify(document)));
    assert.isTrue(Result.isFailure(decoded));
    if (Result.isSuccess(decoded)) return;
    assert.strictEqual(decoded.failure.reason, reason);
    assert.include(decoded.failure.message, text);
    assert.isBelow(decoded.failure.message.length, 300);
  });

  it("names the field at fault", () => {
    const decoded = Review.decode(review({ resource: { group: "g", version: "v1", resource: 7 } }));
    assert.isTrue(Result.isFailure(decoded));
    if (Result.isSuccess(decoded)) return;
    assert.strictEqual(decoded.failure.field, "request.resource.resource");
    assert.strictEqual(
      decoded.failure.message,
      "request.resource.resource: expected a non-empty string; got 7.",
    );
  });

  it("passes the objects on as they are, without interpreting their keys", () => {
    const object = JSON.parse('{"__proto__": {"polluted": true}, "spec": {}}');
    const decoded = Review.decode(review({ object, name: "", namespace: null }));
    assert.isTrue(Result.isSuccess(decoded));
    if (Result.isFailure(decoded)) return;
    assert.strictEqual(decoded.success.request.object, object);
    assert.strictEqual(decoded.success.request.name, undefined);
    assert.strictEqual(decoded.success.request.namespace, undefined);
    assert.isUndefined((decoded.success.request.object as any).polluted);
  });

  it("is total: any JSON value decodes or fails with a ReviewError", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.jsonValue().map((request) => ({ ...review(), request })),
        ),
        (doc) => {
          const decoded = Review.decode(doc);
          return Result.isSuccess(decoded) || decoded.failure._tag === "ReviewError";
        },
      ),
    );
  });
});

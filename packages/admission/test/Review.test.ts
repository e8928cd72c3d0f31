/** AdmissionReview decoding: valid reviews of both versions, and a named error for every malformed one. */
import { assert, describe, it } from "@effect/vitest";
import { Result } from "effect";
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
    ["another kind", review({}, { kind: "Pod" }), "NotAReview", 'Expected kind AdmissionReview; got "Pod"'],
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
      "no request",
    ],
    ["no uid", review({ uid: undefined }), "InvalidField", "request.uid"],
    ["a numeric uid", review({ uid: 123 }), "InvalidField", "got 123"],
    ["a bad operation", review({ operation: "PATCH" }), "InvalidField", "request.operation"],
    ["no userInfo", review({ userInfo: undefined }), "MissingUserInfo", "User info is missing"],
    ["no resource", review({ resource: undefined }), "InvalidField", "request.resource"],
    ["a partial resource", review({ resource: { group: "" } }), "InvalidField", "request.resource"],
    [
      "no bodies",
      review({ object: null, oldObject: null }),
      "MissingObject",
      "Either old or new object is missing",
    ],
    ["a scalar object", review({ object: 5 }), "InvalidField", "request.object must be an object"],
    ["a numeric subresource", review({ subResource: 1 }), "InvalidField", "request.subResource"],
    ["a string dryRun", review({ dryRun: "yes" }), "InvalidField", "request.dryRun"],
  ] as const)("rejects %s", (_name, document, reason, text) => {
    const decoded = Review.decode(document);
    assert.isTrue(Result.isFailure(decoded));
    if (Result.isSuccess(decoded)) return;
    assert.strictEqual(decoded.failure.reason, reason);
    assert.include(decoded.failure.message, text);
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

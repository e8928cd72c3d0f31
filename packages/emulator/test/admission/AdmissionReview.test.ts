// Covers the AdmissionReview exchange: the request document (omitempty fields; object and
// oldObject always there, null when absent, as kube-apiserver v1.34 sends them), the checks on a
// webhook's answer (apiVersion/kind, uid, patch and patchType, validating patches; less for
// v1beta1) worded as kube-apiserver words them, and the exact Status objects for denials, failed
// calls and unsupported dry runs.
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import * as AdmissionReview from "../../src/admission/AdmissionReview.ts";
import { admissionRequest, patchOf } from "./support.ts";

describe("AdmissionReview.requestDocument", () => {
  it("leaves out empty subresources, names and namespaces; absent objects are null", () => {
    const doc = AdmissionReview.requestDocument(
      "u1",
      admissionRequest({ name: "", namespace: "", object: undefined, oldObject: null }),
      "v1",
    );
    assert.deepStrictEqual(doc, {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "u1",
        kind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
        resource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
        requestKind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
        requestResource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
        operation: "CREATE",
        userInfo: { username: "system:admin", groups: ["system:masters"] },
        object: null,
        oldObject: null,
        dryRun: false,
      },
    });
  });

  it("names a Namespace's own namespace, as kube-apiserver does", () => {
    const namespaces = {
      kind: { group: "", version: "v1", kind: "Namespace" },
      resource: { group: "", version: "v1", resource: "namespaces" },
      name: "team-a",
      namespace: "",
    };
    const doc = AdmissionReview.requestDocument("u3", admissionRequest(namespaces), "v1");
    assert.strictEqual((doc.request as Record<string, unknown>).namespace, "team-a");
    const node = AdmissionReview.requestDocument(
      "u4",
      admissionRequest({ ...namespaces, resource: { group: "", version: "v1", resource: "nodes" } }),
      "v1",
    );
    assert.notProperty(node.request, "namespace");
  });

  it("carries subresources, names, objects and options when present", () => {
    const doc = AdmissionReview.requestDocument(
      "u2",
      admissionRequest({
        operation: "UPDATE",
        subResource: "status",
        requestSubResource: "status",
        oldObject: { a: 1 },
        options: { kind: "UpdateOptions" },
      }),
      "v1beta1",
    );
    const request = doc.request as Record<string, unknown>;
    assert.strictEqual(doc.apiVersion, "admission.k8s.io/v1beta1");
    assert.strictEqual(request.subResource, "status");
    assert.strictEqual(request.requestSubResource, "status");
    assert.strictEqual(request.name, "kopf-example-1");
    assert.strictEqual(request.namespace, "ns1");
    assert.deepStrictEqual(request.oldObject, { a: 1 });
    assert.deepStrictEqual(request.options, { kind: "UpdateOptions" });
  });
});

describe("AdmissionReview.verifyResponse", () => {
  const ok = (response: Record<string, unknown>, apiVersion = "admission.k8s.io/v1") => ({
    apiVersion,
    kind: "AdmissionReview",
    response,
  });
  const patch = [{ op: "add", path: "/metadata/labels/x", value: "y" }];
  it.each([
    [
      "an allowing answer",
      true,
      ok({ uid: "u", allowed: true }),
      Result.succeed({ allowed: true, result: undefined, patch: [], warnings: [] }),
    ],
    [
      "a denial with status and warnings",
      false,
      ok({ uid: "u", allowed: false, status: { code: 403, message: "no" }, warnings: ["careful"] }),
      Result.succeed({
        allowed: false,
        result: { code: 403, message: "no" },
        patch: [],
        warnings: ["careful"],
      }),
    ],
    [
      "a mutating patch",
      true,
      ok({ uid: "u", allowed: true, patchType: "JSONPatch", patch: patchOf(patch) }),
      Result.succeed({ allowed: true, result: undefined, patch, warnings: [] }),
    ],
    [
      "a wrong uid",
      true,
      ok({ uid: "v", allowed: true }),
      Result.fail('received invalid webhook response: expected response.uid="u", got "v"'),
    ],
    [
      "a wrong apiVersion",
      true,
      ok({ uid: "u", allowed: true }, "admission.k8s.io/v1beta1"),
      Result.fail(
        "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview",
      ),
    ],
    [
      "no response",
      true,
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      Result.fail("received invalid webhook response: webhook response was absent"),
    ],
    [
      "a patch without patchType",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf(patch) }),
      Result.fail(
        "received invalid webhook response: webhook returned response.patch but not response.patchType",
      ),
    ],
    [
      "a patch of another type",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf(patch), patchType: "MergePatch" }),
      Result.fail('unsupported patch type "MergePatch"'),
    ],
    [
      "a patch from a validating webhook",
      false,
      ok({ uid: "u", allowed: true, patch: patchOf(patch), patchType: "JSONPatch" }),
      Result.fail("received invalid webhook response: validating webhook may not return response.patch"),
    ],
    [
      "a patch that is not a list of operations",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf({ op: "add" } as never), patchType: "JSONPatch" }),
      Result.fail(
        "received undecodable patch in webhook response: the patch is not a JSON patch (a list of operations)",
      ),
    ],
    [
      "a patchType without a patch",
      true,
      ok({ uid: "u", allowed: true, patchType: "JSONPatch" }),
      Result.fail(
        "received invalid webhook response: webhook returned response.patchType but not response.patch",
      ),
    ],
    [
      "an empty patchType",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf(patch), patchType: "" }),
      Result.fail('received invalid webhook response: webhook returned invalid response.patchType of ""'),
    ],
    [
      "an empty patch of another type (nothing to apply)",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf([]), patchType: "MergePatch" }),
      Result.succeed({ allowed: true, result: undefined, patch: [], warnings: [] }),
    ],
    [
      "a patchType from a validating webhook",
      false,
      ok({ uid: "u", allowed: true, patchType: "JSONPatch" }),
      Result.fail("received invalid webhook response: validating webhook may not return response.patchType"),
    ],
    [
      "a denial with a patch (not applied)",
      true,
      ok({ uid: "u", allowed: false, patch: patchOf(patch), patchType: "JSONPatch" }),
      Result.succeed({ allowed: false, result: undefined, patch: [], warnings: [] }),
    ],
  ] as const)("%s", (_, mutating, document, expected) => {
    assert.deepStrictEqual<unknown>(AdmissionReview.verifyResponse("u", "v1", mutating, document), expected);
  });

  it.each([
    [
      "neither uid nor apiVersion checked",
      true,
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "v", allowed: true } },
      Result.succeed({ allowed: true, result: undefined, patch: [], warnings: [] }),
    ],
    [
      "a patch without patchType is a JSON patch",
      true,
      ok({ uid: "u", allowed: true, patch: patchOf(patch) }, "admission.k8s.io/v1beta1"),
      Result.succeed({ allowed: true, result: undefined, patch, warnings: [] }),
    ],
    [
      "a patch from a validating webhook is ignored",
      false,
      ok({ uid: "u", allowed: true, patch: patchOf(patch) }, "admission.k8s.io/v1beta1"),
      Result.succeed({ allowed: true, result: undefined, patch: [], warnings: [] }),
    ],
    [
      "no response",
      true,
      { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview" },
      Result.fail("received invalid webhook response: webhook response was absent"),
    ],
  ] as const)("v1beta1: %s", (_, mutating, document, expected) => {
    assert.deepStrictEqual<unknown>(
      AdmissionReview.verifyResponse("u", "v1beta1", mutating, document),
      expected,
    );
  });
});

describe("AdmissionReview statuses", () => {
  it.each([
    [
      "message and code",
      { code: 403, message: "spec.x is required" },
      { message: 'admission webhook "w.kopf.dev" denied the request: spec.x is required', code: 403 },
    ],
    [
      "reason only",
      { reason: "NotAllowed" },
      {
        message: 'admission webhook "w.kopf.dev" denied the request: NotAllowed',
        reason: "NotAllowed",
        code: 400,
      },
    ],
    [
      "nothing",
      undefined,
      { message: 'admission webhook "w.kopf.dev" denied the request without explanation', code: 400 },
    ],
    [
      "a code below 400",
      { code: 200, message: "m" },
      { message: 'admission webhook "w.kopf.dev" denied the request: m', code: 400 },
    ],
  ] as const)("a denial with %s", (_, result, expected) => {
    assert.deepStrictEqual<unknown>(AdmissionReview.denialStatus("w.kopf.dev", result), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      ...expected,
    });
  });

  it("a failed call is a 500 InternalError naming the webhook", () => {
    assert.deepStrictEqual<unknown>(
      AdmissionReview.callFailureStatus("w.kopf.dev", "failed to call webhook: boom"),
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'Internal error occurred: failed calling webhook "w.kopf.dev": failed to call webhook: boom',
        reason: "InternalError",
        details: {
          causes: [{ message: 'failed calling webhook "w.kopf.dev": failed to call webhook: boom' }],
        },
        code: 500,
      },
    );
  });

  it("an unsupported dry run is a 400 BadRequest", () => {
    const status = AdmissionReview.dryRunUnsupportedStatus("w.kopf.dev");
    assert.strictEqual(status.code, 400);
    assert.strictEqual(status.reason, "BadRequest");
    assert.strictEqual(status.message, 'admission webhook "w.kopf.dev" does not support dry run');
  });
});

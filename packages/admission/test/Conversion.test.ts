/**
 * Conversion webhooks: ConversionReviews are told apart from AdmissionReviews, answered for the
 * typed resource declared at the path (objects converted between versions, a failed result for
 * an object that does not decode), and 404 for paths no resource converts at.
 */
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import { Conversion } from "../src/index.ts";
import { Widget } from "./fixtures/widget.ts";

const registry = Registry.make();
registry.declare(Widget);

const reviewOf = (objects: ReadonlyArray<unknown>, desiredAPIVersion = "kopf.dev/v2") => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "u1", desiredAPIVersion, objects },
});

const v1 = { apiVersion: "kopf.dev/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 2 } };

describe("Conversion", () => {
  it.each([
    [reviewOf([]), true],
    [{ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: {} }, false],
    [{ apiVersion: "apiextensions.k8s.io/v1beta1", kind: "ConversionReview" }, false],
    [null, false],
  ])("isReview(%j) is %s", (body, expected) => {
    assert.strictEqual(Conversion.isReview(body), expected);
  });

  it("answers at the resource's path: every object converted", () => {
    assert.strictEqual(Conversion.webhookOf("kopf.dev", "widgets"), "convert/kopf.dev/widgets");
    assert.deepStrictEqual(
      Conversion.answer(registry.resources, "convert/kopf.dev/widgets", reviewOf([v1])),
      {
        status: 200,
        body: {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "ConversionReview",
          response: {
            uid: "u1",
            convertedObjects: [
              { apiVersion: "kopf.dev/v2", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 2 } },
            ],
            result: { status: "Success" },
          },
        },
      },
    );
  });

  it("a failed result names the object that does not decode", () => {
    const answer = Conversion.answer(
      registry.resources,
      "convert/kopf.dev/widgets",
      reviewOf([v1, { ...v1, spec: {} }]),
    );
    const response = (answer.body as { response: { result: { status: string; message: string } } }).response;
    assert.strictEqual(answer.status, 200);
    assert.strictEqual(response.result.status, "Failure");
    assert.include(response.result.message, "objects[1]: kopf.dev/v1 does not decode: spec.size");
  });

  it("404 where no resource converts", () => {
    assert.strictEqual(
      Conversion.answer(registry.resources, "convert/kopf.dev/gadgets", reviewOf([])).status,
      404,
    );
    assert.isTrue(Conversion.hasConversions(registry));
    assert.isFalse(Conversion.hasConversions(Registry.make()));
  });
});

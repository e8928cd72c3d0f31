import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { ConversionReview } from "../src/index.ts";
import { Example } from "./fixtures.ts";

const v1 = {
  apiVersion: "kopf.dev/v1",
  kind: "TypedExample",
  metadata: { name: "a", uid: "u1" },
  spec: { size: 3, mode: "fast" },
  status: { phase: "Ready" },
};
const v2 = {
  apiVersion: "kopf.dev/v2",
  kind: "TypedExample",
  metadata: { name: "a", uid: "u1" },
  spec: { replicas: 3, mode: "fast" },
  status: { phase: "Ready" },
};

describe("convert", () => {
  it.each([
    ["v1 to the storage version", v1, "kopf.dev/v2", v2],
    ["the storage version to v1", v2, "kopf.dev/v1", v1],
    ["to the same version: unchanged", v1, "kopf.dev/v1", v1],
    ["without status", { ...v1, status: undefined }, "kopf.dev/v2", { ...v2, status: undefined }],
  ])("%s", (_, object, desired, expected) => {
    const cleaned = JSON.parse(JSON.stringify(expected));
    expect(
      Result.map(ConversionReview.convert(Example, JSON.parse(JSON.stringify(object)), desired), (o) =>
        JSON.parse(JSON.stringify(o)),
      ),
    ).toEqual(Result.succeed(cleaned));
  });

  it.each([
    [
      "an unknown version",
      { ...v1, apiVersion: "kopf.dev/v9" },
      "kopf.dev/v2",
      "unknown apiVersion kopf.dev/v9",
    ],
    ["an unknown desired version", v1, "other.dev/v1", "unknown desired apiVersion other.dev/v1"],
    [
      "an object that does not decode",
      { ...v1, spec: { size: "x" } },
      "kopf.dev/v2",
      "kopf.dev/v1 does not decode: spec.size",
    ],
  ])("fails on %s", (_, object, desired, message) => {
    const result = ConversionReview.convert(Example, object, desired);
    expect(Result.isFailure(result) && result.failure).toContain(message);
  });
});

describe("review", () => {
  it("converts every object of a request", () => {
    const answer = ConversionReview.review(Example, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "r1", desiredAPIVersion: "kopf.dev/v2", objects: [v1, v2] },
    });
    expect(answer).toEqual({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: { uid: "r1", convertedObjects: [v2, v2], result: { status: "Success" } },
    });
  });

  it.each([
    [
      "a bad object",
      { uid: "r2", desiredAPIVersion: "kopf.dev/v2", objects: [v1, { ...v1, spec: {} }] },
      "objects[1]: kopf.dev/v1 does not decode: spec.size",
    ],
    ["no request", undefined, "not a ConversionReview request"],
  ])("fails the whole review on %s", (_, request, message) => {
    const answer = ConversionReview.review(Example, { request }) as {
      response: { result: { status: string; message: string } };
    };
    expect(answer.response.result.status).toBe("Failure");
    expect(answer.response.result.message).toContain(message);
  });
});

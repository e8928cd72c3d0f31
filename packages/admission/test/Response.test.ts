/** AdmissionReview responses (docs/behaviour/admission.md#requests): envelope and uid echo, allowed, warnings, patch, the reported error. */
import { assert, describe, it } from "@effect/vitest";
import { AdmissionError, PermanentError, TemporaryError } from "@kopf/registry";
import * as fc from "fast-check";
import { Response } from "../src/index.ts";

const decodePatch = (patch: string | undefined) =>
  JSON.parse(Buffer.from(patch ?? "", "base64").toString("utf8"));

describe("Response.build", () => {
  it("echoes the envelope and the uid; no handlers ⇒ allowed, nothing else", () => {
    const doc = Response.build({
      apiVersion: "admission.k8s.io/v1beta1",
      kind: "AdmissionReview",
      uid: "u1",
    });
    assert.deepStrictEqual(doc, {
      apiVersion: "admission.k8s.io/v1beta1",
      kind: "AdmissionReview",
      response: { uid: "u1", allowed: true },
    });
  });

  it("defaults the envelope to admission.k8s.io/v1 AdmissionReview", () => {
    const doc = Response.build({ uid: "u1" });
    assert.strictEqual(doc.apiVersion, "admission.k8s.io/v1");
    assert.strictEqual(doc.kind, "AdmissionReview");
  });

  it.each([
    ["Error", new Error("No!"), "No!", 500],
    ["PermanentError", new PermanentError("No!"), "No!", 500],
    ["TemporaryError", new TemporaryError("No!"), "No!", 500],
    ["AdmissionError", new AdmissionError("No!"), "No!", 500],
    ["AdmissionError with a code", new AdmissionError("No!", { code: 123 }), "No!", 123],
    ["AdmissionError with code 0", new AdmissionError("No!", { code: 0 }), "No!", 500],
    ["AdmissionError without a message", new AdmissionError(), "AdmissionError()", 500],
    ["a thrown string", "No!", "No!", 500],
  ] as const)("%s ⇒ denied with its message and code", (_name, error, message, code) => {
    const doc = Response.build({ uid: "u1", errors: [error] });
    assert.deepStrictEqual(doc.response, { uid: "u1", allowed: false, status: { message, code } });
  });

  const A1 = new AdmissionError("a1", { code: 401 });
  const A2 = new AdmissionError("a2", { code: 402 });
  const P1 = new PermanentError("p1");
  const P2 = new PermanentError("p2");
  const T1 = new TemporaryError("t1");
  const E1 = new Error("e1");
  const E2 = new Error("e2");
  it.each([
    ["first of equal arbitrary errors", [E1, E2], "e1"],
    ["temporary over arbitrary", [E1, T1], "t1"],
    ["permanent over temporary", [T1, P1, E1], "p1"],
    ["first of equal permanent errors", [P1, P2], "p1"],
    ["admission over permanent", [P1, A1, T1], "a1"],
    ["first of equal admission errors", [E1, A2, A1], "a2"],
  ] as const)("priority: %s", (_name, errors, message) => {
    const doc = Response.build({ uid: "u1", errors });
    assert.strictEqual(doc.response.status?.message, message);
    assert.isFalse(doc.response.allowed);
  });

  it("returns the warnings, stringified", () => {
    const doc = Response.build({ uid: "u1", warnings: ["w1", 42] });
    assert.deepStrictEqual(doc.response.warnings, ["w1", "42"]);
    assert.isTrue(doc.response.allowed);
  });

  it("encodes the patch as base64 JSON patch", () => {
    const patch = [
      { op: "add", path: "/xyz", value: "added" },
      { op: "replace", path: "/spec/field", value: "replaced" },
    ] as const;
    const doc = Response.build({ uid: "u1", patch });
    assert.strictEqual(doc.response.patchType, "JSONPatch");
    assert.deepStrictEqual(decodePatch(doc.response.patch), patch);
  });

  it("property: allowed iff no errors; the reported error has the lowest rank, first among equals", () => {
    const errorArb = fc.constantFrom<unknown>(A1, A2, P1, P2, T1, E1, E2);
    fc.assert(
      fc.property(fc.array(errorArb, { maxLength: 6 }), (errors) => {
        const doc = Response.build({ uid: "u", errors });
        if (errors.length === 0) return doc.response.allowed && doc.response.status === undefined;
        const best = Math.min(...errors.map(Response.rank));
        const first = errors.find((e) => Response.rank(e) === best) as Error;
        return !doc.response.allowed && doc.response.status?.message === first.message;
      }),
    );
  });
});

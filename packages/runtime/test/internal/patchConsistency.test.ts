// Covers the inconsistency check after merge-patching (docs/behaviour/processing.md#patching) as a table, plus the
// property that a response echoing the patch (with any extra fields) is always consistent.
import { assert, describe, it } from "@effect/vitest";
import * as fc from "fast-check";
import { inconsistencies } from "../../src/internal/patchConsistency.ts";

const PATCH = { spec: { x: "y" }, status: { s: "t" } };

describe("inconsistencies", () => {
  it.each([
    ["the response echoes the patch", PATCH, { spec: { x: "y" }, status: { s: "t" } }, false],
    ["the response has extra fields", PATCH, { spec: { x: "y", z: 1 }, status: { s: "t" }, other: 2 }, false],
    ["nulled fields are gone", { spec: { x: null } }, { spec: {} }, false],
    ["empty annotations vanish", { metadata: { annotations: {} } }, { metadata: {} }, false],
    ["empty finalizers vanish", { metadata: { finalizers: [] } }, { metadata: {} }, false],
    ["empty labels vanish", { metadata: { labels: {} } }, { metadata: { name: "n" } }, false],
    ["the response is empty", PATCH, {}, true],
    ["the spec is lost", PATCH, { status: { s: "t" } }, true],
    ["the status is lost", PATCH, { spec: { x: "y" } }, true],
    ["a value is altered", PATCH, { spec: { x: "z" }, status: { s: "t" } }, true],
    ["a nulled field is kept", { spec: { x: null } }, { spec: { x: 1 } }, true],
    ["non-empty annotations are lost", { metadata: { annotations: { a: "b" } } }, { metadata: {} }, true],
    ["non-empty finalizers are lost", { metadata: { finalizers: ["f"] } }, { metadata: {} }, true],
    ["non-empty labels are lost", { metadata: { labels: { a: "b" } } }, {}, true],
  ])("%s ⇒ inconsistent: %s", (_, patch, response, expected) => {
    assert.strictEqual(inconsistencies(patch, response).length > 0, expected);
  });

  it("a response containing the patch is consistent", () =>
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()),
        fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()),
        (patch, extra) => {
          const response = { ...extra, ...patch };
          assert.deepStrictEqual(inconsistencies(patch, response), []);
        },
      ),
    ));
});

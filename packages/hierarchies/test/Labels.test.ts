/**
 * Labelling (docs/behaviour/hierarchies.md): missing keys only unless forced (and the deprecated `force` alias),
 * nested sub-objects by one path or several, missing paths ignored, multiple objects.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import { Labels } from "../src/index.ts";

describe("label", () => {
  it.each([
    [{}, { app: "mine", tier: "y" }],
    [{ forced: false }, { app: "mine", tier: "y" }],
    [{ forced: true }, { app: "x", tier: "y" }],
    [{ force: true }, { app: "x", tier: "y" }],
    [
      { force: true, forced: false },
      { app: "mine", tier: "y" },
    ],
  ])("options %j ⇒ %j", (options, expected) => {
    const obj: any = { metadata: { labels: { app: "mine" } } };
    Labels.label(obj, { app: "x", tier: "y" }, options);
    assert.deepStrictEqual(obj.metadata.labels, expected);
  });

  it.each([
    [{}, { metadata: { labels: { a: "b" } } }],
    [{ metadata: null }, { metadata: { labels: { a: "b" } } }],
    [{ metadata: { labels: null } }, { metadata: { labels: { a: "b" } } }],
  ])("creates metadata and labels: %j", (obj, expected) => {
    Labels.label(obj, { a: "b" });
    assert.deepStrictEqual(obj, expected);
  });

  it.each([
    ["spec.template", ["template"]],
    [
      ["spec.template", "spec.jobTemplate"],
      ["template", "jobTemplate"],
    ],
  ])("labels nested %j and ignores missing paths", (nested, expectedLabelled) => {
    const obj: any = { spec: { template: {}, jobTemplate: { metadata: {} } } };
    const bare: any = { spec: {} };
    Labels.label([obj, bare], { a: "b" }, { nested });
    assert.deepStrictEqual(obj.metadata.labels, { a: "b" });
    for (const key of ["template", "jobTemplate"]) {
      assert.strictEqual(obj.spec[key].metadata?.labels?.a, expectedLabelled.includes(key) ? "b" : undefined);
    }
    assert.deepStrictEqual(bare, { spec: {}, metadata: { labels: { a: "b" } } });
  });

  it("property: never changes an existing label unless forced", () => {
    const dict = fc.dictionary(fc.constantFrom("a", "b", "c", "d"), fc.string());
    fc.assert(
      fc.property(dict, dict, fc.boolean(), (existing, labels, forced) => {
        const obj: any = { metadata: { labels: { ...existing } } };
        Labels.label(obj, labels, { forced });
        return Object.keys({ ...existing, ...labels }).every(
          (key) =>
            obj.metadata.labels[key] ===
            (forced && key in labels ? labels[key] : (existing[key] ?? labels[key])),
        );
      }),
    );
  });
});

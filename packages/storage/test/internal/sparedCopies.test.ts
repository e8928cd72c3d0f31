/**
 * The predicates that let the storages spare a copy — `removes` (would `remove` change the
 * object?) and `hasEmptyStanzas` (would `removeEmptyStanzas`?) — must agree with the mutating
 * functions on every shape: absent paths, already-empty parents, non-objects on the way, and the
 * falsy values Python counts as empty.
 */
import { assert, describe, it } from "@effect/vitest";
import { Json } from "@kopf/structs";
import { hasEmptyStanzas, removeEmptyStanzas } from "../../src/internal/conventions.ts";
import { type MutableObject, remove, removes } from "../../src/internal/dicts.ts";

const essences: ReadonlyArray<MutableObject> = [
  {},
  { spec: { a: 1 } },
  { status: {} },
  { status: { kopf: {} } },
  { status: { kopf: { progress: {} } } },
  { status: { kopf: { progress: { fn: {} } }, other: 1 } },
  { status: { kopf: { other: 1 } } },
  { status: { kopf: 5 } },
  { status: 0 },
  { status: "" },
  { status: null },
  { status: false },
  { status: [] },
  { status: [1] },
  { status: { phase: "Running" } },
  { metadata: {} },
  { metadata: null },
  { metadata: { labels: {} } },
  { metadata: { labels: { a: "b" } } },
  { metadata: { annotations: {}, labels: { a: "b" } } },
  { metadata: { annotations: { x: "y" } } },
  { metadata: { annotations: "" } },
  { metadata: { name: "n" }, spec: {} },
];

const changes = (essence: MutableObject, mutate: (copy: MutableObject) => void): boolean => {
  const copy = Json.deepCopy(essence);
  mutate(copy);
  return !Json.deepEqual(copy, essence);
};

describe("spared copies", () => {
  it("removes tells whether remove changes the object", () => {
    for (const path of [
      ["status", "kopf", "progress"],
      ["status"],
      ["spec", "a"],
      ["metadata", "labels"],
      [],
    ])
      for (const essence of essences)
        assert.strictEqual(
          removes(essence, path),
          changes(essence, (copy) => remove(copy, path)),
          `${JSON.stringify(essence)} at ${path.join(".")}`,
        );
  });

  it("hasEmptyStanzas tells whether removeEmptyStanzas changes the essence", () => {
    for (const essence of essences)
      assert.strictEqual(
        hasEmptyStanzas(essence),
        changes(essence, removeEmptyStanzas),
        JSON.stringify(essence),
      );
  });
});

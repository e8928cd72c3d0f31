/**
 * FieldChanges: the paths an update changed and removed, computed where the versions differ, equal
 * to comparing the two versions' whole field sets — for examples and for random pairs of objects
 * (the new one sharing parts with the old one, as stored versions do).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Crd from "../../src/api/Crd.ts";
import { changes } from "../../src/api/FieldChanges.ts";
import * as FieldSet from "../../src/api/FieldSet.ts";
import { deepEqual, type JsonObject } from "../../src/api/internal/Json.ts";
import { BUILTINS, type ResourceType } from "../../src/api/ResourceType.ts";
import * as TypeShape from "../../src/api/TypeShape.ts";
import { CRD } from "./Harness.ts";

const pods = BUILTINS.find((t) => t.plural === "pods") as ResourceType;
const custom = Crd.resourceTypeOf({
  ...CRD,
  spec: {
    ...CRD.spec,
    versions: [
      {
        ...CRD.spec.versions[0],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  a: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                  items: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                  },
                  sel: { type: "object", "x-kubernetes-map-type": "atomic" },
                },
                "x-kubernetes-preserve-unknown-fields": true,
              },
            },
          },
        },
      },
    ],
  },
}) as ResourceType;

/** The changes by whole field sets: new or changed-leaf paths of `next`, and paths gone from `old`. */
const reference = (old: JsonObject, next: JsonObject, type: ResourceType) => {
  const shape = TypeShape.shapeOf(type);
  const now = FieldSet.of(next, shape);
  const before = FieldSet.of(old, shape);
  const parents = FieldSet.parentsOf(now);
  return {
    changed: [...now]
      .filter(
        (p) =>
          !before.has(p) ||
          (!parents.has(p) && !deepEqual(FieldSet.lookup(old, p).value, FieldSet.lookup(next, p).value)),
      )
      .sort(),
    removed: [...before].filter((p) => !now.has(p)).sort(),
  };
};

const computed = (old: JsonObject, next: JsonObject, type: ResourceType) => {
  const c = changes(old, next, TypeShape.shapeOf(type));
  return { changed: [...c.changed].sort(), removed: [...c.removed].sort() };
};

describe("changes", () => {
  const base: JsonObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", labels: { app: "x" }, finalizers: ["f1"], resourceVersion: "1" },
    spec: { containers: [{ name: "c", image: "i1" }], nodeName: "n" },
  };
  it.each<[string, JsonObject, { changed: Array<string>; removed: Array<string> }]>([
    [
      "a label added",
      { ...base, metadata: { ...(base.metadata as JsonObject), labels: { app: "x", n: "1" } } },
      { changed: ["f:metadata\nf:labels\nf:n"], removed: [] },
    ],
    [
      "a label's value changed",
      { ...base, metadata: { ...(base.metadata as JsonObject), labels: { app: "y" } } },
      { changed: ["f:metadata\nf:labels\nf:app"], removed: [] },
    ],
    [
      "the labels removed",
      { ...base, metadata: { ...(base.metadata as JsonObject), labels: undefined } },
      { changed: [], removed: ["f:metadata\nf:labels", "f:metadata\nf:labels\nf:app"] },
    ],
    [
      "an ignored field changed",
      { ...base, metadata: { ...(base.metadata as JsonObject), resourceVersion: "2" } },
      { changed: [], removed: [] },
    ],
    [
      "a container's image changed",
      { ...base, spec: { ...(base.spec as JsonObject), containers: [{ name: "c", image: "i2" }] } },
      { changed: ['f:spec\nf:containers\nk:{"name":"c"}\nf:image'], removed: [] },
    ],
  ])("%s", (_what, next, expected) => {
    const cleaned = JSON.parse(JSON.stringify(next)) as JsonObject;
    expect(computed(base, cleaned, pods)).toEqual(expected);
    expect(reference(base, cleaned, pods)).toEqual(expected);
  });

  const KEYS = ["a", "b", "name", "items", "sel", "labels", "finalizers", "containers", "spec", "image"];
  const json = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom<unknown>("x", "y", 1, true, null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...KEYS), tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  const object = fc.dictionary(fc.constantFrom(...KEYS, "metadata", "status"), json, { maxKeys: 5 });
  /** A new version: some fields kept as the very same values, some replaced, some added or dropped. */
  const edit = (value: unknown, edits: ReadonlyArray<number>, fresh: unknown, at = 0): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const out: JsonObject = {};
    let i = at;
    for (const [k, v] of Object.entries(value)) {
      const e = edits[i++ % edits.length] ?? 0;
      if (e === 0) out[k] = v;
      else if (e === 1) out[k] = edit(v, edits, fresh, i);
      else if (e === 2) out[k] = fresh;
      else if (e === 3) out[k] = JSON.parse(JSON.stringify(v ?? null));
    }
    if ((edits[at % edits.length] ?? 0) === 2) out.b = fresh;
    return out;
  };

  it.each([
    ["a built-in type", pods],
    ["a custom resource", custom],
  ])("equals the whole-set comparison for random objects (%s)", (_what, type) => {
    fc.assert(
      fc.property(
        object,
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
        json,
        (old, edits, fresh) => {
          const next = edit(old, edits, fresh) as JsonObject;
          expect(computed(old, next, type)).toEqual(reference(old, next, type));
        },
      ),
      { numRuns: 400 },
    );
  });
});

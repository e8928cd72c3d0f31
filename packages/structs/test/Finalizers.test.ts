// Finalizers: deletion predicates and the finalizer patch functions as JSON-patch ops (docs/behaviour/processing.md#json-patches).
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import type { RawBody } from "../src/Body.ts";
import * as Finalizers from "../src/Finalizers.ts";
import type { JsonPatch } from "../src/JsonPatch.ts";
import { Patch } from "../src/Patch.ts";

describe("isDeletionOngoing", () => {
  it.each<[string, RawBody, boolean]>([
    ["a timestamp", { metadata: { deletionTimestamp: "2020-12-31T23:59:59" } }, true],
    ["a null timestamp", { metadata: { deletionTimestamp: null } }, false],
    ["no field", { metadata: {} }, false],
    ["no metadata", {}, false],
  ])("is %s ⇒ %s", (_, body, expected) => {
    expect(Finalizers.isDeletionOngoing(body)).toBe(expected);
  });
});

describe("isDeletionBlocked and hasFinalizer", () => {
  it.each<[string, RawBody, boolean]>([
    ["no metadata", {}, false],
    ["no finalizers", { metadata: {} }, false],
    ["empty finalizers", { metadata: { finalizers: [] } }, false],
    ["other finalizers", { metadata: { finalizers: ["other"] } }, false],
    ["our finalizer", { metadata: { finalizers: ["fin"] } }, true],
    ["mixed finalizers", { metadata: { finalizers: ["other", "fin"] } }, true],
  ])("with %s ⇒ %s", (_, body, expected) => {
    expect(Finalizers.isDeletionBlocked(body, "fin")).toBe(expected);
    expect(Finalizers.hasFinalizer(body, "fin")).toBe(expected);
  });
});

describe("the finalizer patch functions as JSON patches", () => {
  const ops = (body: RawBody, fn: "block" | "allow"): JsonPatch => {
    const patch = new Patch();
    patch.fns.push(fn === "block" ? Finalizers.blockDeletion("fin") : Finalizers.allowDeletion("fin"));
    return Result.getOrThrow(patch.asJsonPatch(body));
  };

  // Kopf's tests/test_finalizers.py.
  it.each<[string, RawBody, "block" | "allow", JsonPatch]>([
    [
      "adding to others",
      { metadata: { finalizers: ["other1", "other2"], resourceVersion: "1234567890" } },
      "block",
      [{ op: "add", path: "/metadata/finalizers/2", value: "fin" }],
    ],
    [
      "adding to an empty body",
      {},
      "block",
      [{ op: "add", path: "/metadata", value: { finalizers: ["fin"] } }],
    ],
    ["adding when present", { metadata: { finalizers: ["other1", "fin", "other2"] } }, "block", []],
    [
      "removing, keeping others",
      { metadata: { finalizers: ["other1", "fin", "other2"], resourceVersion: "1234567890" } },
      "allow",
      [{ op: "remove", path: "/metadata/finalizers/1" }],
    ],
    [
      "removing the last one",
      { metadata: { finalizers: ["fin"], resourceVersion: "1234567890" } },
      "allow",
      [{ op: "remove", path: "/metadata/finalizers" }],
    ],
    [
      "removing the only metadata key",
      { metadata: { finalizers: ["fin"] } },
      "allow",
      [{ op: "remove", path: "/metadata" }],
    ],
    ["removing when absent", { metadata: { finalizers: ["other1", "other2"] } }, "allow", []],
    ["removing from an empty body", {}, "allow", []],
    [
      "removing duplicates",
      { metadata: { finalizers: ["fin", "other", "fin"], name: "x" } },
      "allow",
      [
        { op: "remove", path: "/metadata/finalizers/0" },
        { op: "remove", path: "/metadata/finalizers/1" },
      ],
    ],
  ])("%s", (_, body, fn, expected) => {
    const before = structuredClone(body);
    expect(ops(body, fn)).toEqual(expected);
    expect(body).toEqual(before);
  });

  it("adds the default finalizer when asked to", () => {
    const patch = new Patch({ metadata: { name: "x" } });
    patch.fns.push(Finalizers.blockDeletion(Finalizers.DEFAULT_FINALIZER));
    expect(Result.getOrThrow(patch.asJsonPatch())).toEqual([
      { op: "add", path: "/metadata/finalizers", value: ["kopf.zalando.org/KopfFinalizerMarker"] },
    ]);
  });

  it("repairs corrupted metadata when blocking", () => {
    expect(ops({ metadata: { finalizers: "oops" } } as unknown as RawBody, "block")).toEqual([
      { op: "replace", path: "/metadata/finalizers", value: ["fin"] },
    ]);
  });
});

/**
 * Naming (docs/behaviour/hierarchies.md): objects with a name or generateName are kept unless forced; strict sets
 * the exact name and drops generateName; non-strict sets `generateName: "<name>-"` and drops
 * name; a missing name is an error naming the problem.
 */
import { assert, describe, it } from "@effect/vitest";
import { Naming } from "../src/index.ts";
import { assertThrowsHierarchy } from "./fixtures.ts";

const named = [
  { metadata: { name: "a" } },
  { metadata: { generateName: "b" } },
  { metadata: { name: "c", generateName: "d" } },
];
const unnamed = [{}, { metadata: {} }];

describe("harmonizeNaming", () => {
  it.each(
    named.flatMap((obj) =>
      [{}, { strict: true }, { strict: false }, { forced: false }].map((o) => [obj, o] as const),
    ),
  )("keeps the names of %j (options %j)", (obj, options) => {
    const copy = structuredClone(obj);
    Naming.harmonizeNaming(copy, "provided", options);
    assert.deepStrictEqual(copy, obj);
  });

  it.each(
    [...named, ...unnamed].flatMap((obj) => [
      [obj, { forced: true, strict: true }, { name: "provided" }] as const,
      [obj, { forced: true }, { generateName: "provided-" }] as const,
    ]),
  )("overwrites the names of %j with %j ⇒ %j", (obj, options, expected) => {
    const copy: any = structuredClone(obj);
    Naming.harmonizeNaming(copy, "provided", options);
    assert.deepStrictEqual(copy.metadata, expected);
  });

  it.each(
    unnamed.flatMap((obj) => [
      [obj, { strict: true }, { name: "provided" }] as const,
      [obj, {}, { generateName: "provided-" }] as const,
    ]),
  )("names the unnamed %j with %j ⇒ %j", (obj, options, expected) => {
    const copy: any = structuredClone(obj);
    Naming.harmonizeNaming([[copy]], "provided", options);
    assert.deepStrictEqual(copy.metadata, expected);
  });

  it.each([null, undefined, ""])("fails without a name (%j)", (name) => {
    assertThrowsHierarchy(
      () => Naming.harmonizeNaming({}, name),
      "NoName",
      "Name must be set explicitly: couldn't find it automatically.",
    );
  });
});

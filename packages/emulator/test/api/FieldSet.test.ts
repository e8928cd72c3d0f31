/**
 * The `FieldsV1` encoding of field sets: keys in sorted order at every level, `.` first in a member
 * that has children, as a plain trie built from the sorted paths gives it; decoding gives the set
 * back.
 */
import { describe, expect, it } from "vitest";
import * as FieldSet from "../../src/api/FieldSet.ts";

/** The reference encoding: a trie of the sorted paths, `.` added for members with children. */
const reference = (set: ReadonlySet<string>): unknown => {
  interface Node {
    member: boolean;
    readonly children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const path of [...set].sort()) {
    let node = root;
    for (const element of path.split(FieldSet.SEP)) {
      let next = node.children.get(element);
      if (next === undefined) {
        next = { member: false, children: new Map() };
        node.children.set(element, next);
      }
      node = next;
    }
    node.member = true;
  }
  const encode = (node: Node): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (node.member && node.children.size > 0) out["."] = {};
    for (const [key, child] of node.children) out[key] = encode(child);
    return out;
  };
  return encode(root);
};

const ELEMENTS = [
  "f:metadata",
  "f:annotations",
  "f:spec",
  "f:a",
  "f:b",
  'k:{"name":"x"}',
  'v:"y"',
  "i:0",
  "f:z",
];

const randomSets = (count: number): Array<Set<string>> => {
  let state = 11;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, () => {
    const set = new Set<string>();
    for (let i = Math.floor(next() * 12); i > 0; i--) {
      const depth = 1 + Math.floor(next() * 4);
      const path = Array.from({ length: depth }, () => ELEMENTS[Math.floor(next() * ELEMENTS.length)]);
      set.add(path.join(FieldSet.SEP));
      // Parents are usually members too (an object's own field and its children).
      if (next() < 0.5 && depth > 1) set.add(path.slice(0, depth - 1).join(FieldSet.SEP));
    }
    return set;
  });
};

describe("FieldSet.toFieldsV1", () => {
  it("encodes as the sorted-path trie does, key order included", () => {
    for (const set of randomSets(3000)) {
      expect(JSON.stringify(FieldSet.toFieldsV1(set))).toBe(JSON.stringify(reference(set)));
    }
  });

  it("puts `.` first in a member with children", () => {
    const set = new Set(["f:spec", `f:spec${FieldSet.SEP}f:b`, `f:spec${FieldSet.SEP}f:a`, "f:metadata"]);
    expect(JSON.stringify(FieldSet.toFieldsV1(set))).toBe(
      `{"f:metadata":{},"f:spec":{".":{},"f:a":{},"f:b":{}}}`,
    );
  });

  it("decodes back to the set it encodes", () => {
    for (const set of randomSets(500)) {
      const decoded = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(FieldSet.toFieldsV1(set))));
      expect([...decoded].sort()).toEqual([...set].sort());
    }
  });
});

// Namespaces: Kopf's namespace pattern matching and specific-namespace selection (docs/behaviour/watching.md#namespaces).
import { describe, expect, it } from "vitest";
import { matchNamespace, type NamespacePattern, selectSpecificNamespaces } from "../src/Namespaces.ts";

describe("matchNamespace", () => {
  // Kopf's tests/references/test_namespace_matching.py.
  it.each<[NamespacePattern, boolean]>([
    ["ns1", true],
    ["ns", false],
    ["", false],
    ["*", true],
    ["ns*", true],
    ["ns?", true],
    ["n*1", true],
    ["n?1", true],
    ["*1", true],
    ["??1", true],
    ["ns??", false],
    ["n??1", false],
    ["?1", false],
    ["ns*x", false],
    ["ns1,ns2", true],
    ["ns2,ns1", false],
    [" ns1", true],
    ["ns1 ", true],
    [" ns1 , ns2 ", true],
    [" ns2 , ns1 ", false],
    ["ns*,!ns1", false],
    ["ns*,!ns2", true],
    ["!ns1", false],
    ["!ns2", true],
    ["!ns*", false],
    ["ns*,!ns1,ns1", true],
    ["ns*,!ns*,ns1", true],
    ["!ns*,ns1", true],
    ["!ns*,ns?", true],
    [/ns1/, true],
    [/ns/, false],
    [/s1/, false],
    [/.+s1/, true],
    [/ns.+/, true],
  ])("ns1 against %s ⇒ %s", (pattern, expected) => {
    expect(matchNamespace("ns1", pattern)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ["myapp-test", "myapp-*, !*-pr-*, *pr-123", true],
    ["myapp-pr-123", "myapp-*, !*-pr-*, *pr-123", true],
    ["myapp-pr-456", "myapp-*, !*-pr-*, *pr-123", false],
    ["otherapp-pr-123", "myapp-*, !*-pr-*, *pr-123", false],
    ["otherapp-pr-123", "!*-pr-*, *pr-123", true],
    ["myapp-pr-456", "!*-pr-*, *pr-123", false],
    ["anyapp-anything", "!*-pr-*, *pr-123", true],
    ["ns1", "ns[0-9]", true],
    ["nsx", "ns[!0-9]", true],
    ["ns1", "!!ns1", false],
  ])("%s against %j ⇒ %s", (name, pattern, expected) => {
    expect(matchNamespace(name, pattern)).toBe(expected);
  });

  it("ignores stateful regular-expression flags", () => {
    const re = /ns\d/g;
    expect(matchNamespace("ns1", re)).toBe(true);
    expect(matchNamespace("ns1", re)).toBe(true);
    expect(matchNamespace("ns1\nx", /ns1$/m)).toBe(false);
  });
});

describe("selectSpecificNamespaces", () => {
  it.each<[ReadonlyArray<NamespacePattern>, ReadonlyArray<string>]>([
    [[], []],
    [[""], [""]],
    [
      ["ns2", "ns1"],
      ["ns1", "ns2"],
    ],
    [["ns1", "ns1"], ["ns1"]],
    [["ns1,ns2"], []],
    [["n*s", "n?s"], []],
    [["!ns1"], []],
    [[/ns1/], []],
  ])("selects from %j", (patterns, expected) => {
    expect(selectSpecificNamespaces(patterns)).toEqual(expected);
  });
});

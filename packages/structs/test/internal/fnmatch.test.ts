// fnmatch: glob matching checked against CPython's fnmatch.fnmatchcase results.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fnmatch } from "../../src/internal/fnmatch.ts";

describe("fnmatch", () => {
  // Expected values produced by CPython's fnmatch.fnmatchcase(name, pattern).
  it.each<[string, string, boolean]>([
    ["ns1", "ns[0-9]", true],
    ["ns1", "ns[!0-9]", false],
    ["ns1", "ns[!a-z]", true],
    ["ns[", "ns[", true],
    ["ns[1", "ns[1", true],
    ["a]", "[]]", false],
    ["]", "[]]", true],
    ["a", "[!]]", true],
    ["]", "[!]]", false],
    ["-", "[a-]", true],
    ["-", "[-a]", true],
    ["b", "[z-a]", false],
    ["b", "[z-ab]", true],
    ["a*b", "a[*]b", true],
    ["axb", "a[*]b", false],
    ["abc", "a*c", true],
    ["ac", "a*c", true],
    ["abcbc", "a*bc", true],
    ["abcbd", "a*bc", false],
    ["", "*", true],
    ["", "?", false],
    ["x", "", false],
    ["a\\b", "a\\b", true],
    ["a.b", "a.b", true],
    ["axb", "a.b", false],
    ["aXb", "a[x]b", false],
    ["Ns1", "ns1", false],
    ["ns1", "n**1", true],
    ["n1", "[n][0-9]", true],
  ])("fnmatch(%j, %j) is %s", (name, pattern, expected) => {
    expect(fnmatch(name, pattern)).toBe(expected);
  });

  it("matches every name by itself when it has no special characters", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.-]*$/), (name) => {
        expect(fnmatch(name, name)).toBe(true);
        expect(fnmatch(name, "*")).toBe(true);
      }),
    );
  });

  it("agrees with a regular expression for patterns of literals, * and ?", () => {
    const alphabet = fc.constantFrom("a", "b", "*", "?");
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 8 }),
        fc.string({ unit: alphabet, maxLength: 6 }),
        (name, pattern) => {
          const re = new RegExp(`^${pattern.replaceAll("*", ".*").replaceAll("?", ".")}$`, "s");
          expect(fnmatch(name, pattern)).toBe(re.test(name));
        },
      ),
    );
  });
});

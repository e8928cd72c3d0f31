// Covers the Warning headers of one request as kube-apiserver's warning recorder writes them:
// each text once, empty and control-character texts left out, Go's quoting, and the 4096-rune
// budget after which every text is cut to 256 runes (the real v1.34.4 sent 16 headers of 256
// characters for 20 texts of 300).

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Warnings from "../../src/api/Warnings.ts";

const text = (n: number, c: string) => c.repeat(n);

describe("Warnings.headers", () => {
  it.each([
    { given: [], expected: [] },
    { given: ["a"], expected: ['299 - "a"'] },
    {
      given: ["dup", "mutating only", "dup", "validating only"],
      expected: ['299 - "dup"', '299 - "mutating only"', '299 - "validating only"'],
    },
    { given: ["", "x", ""], expected: ['299 - "x"'] },
    { given: ['say "hi" \\ bye'], expected: ['299 - "say \\"hi\\" \\\\ bye"'] },
    { given: ["line\nbreak", "ok"], expected: ['299 - "ok"'] },
    { given: ["ünïcödé ✓"], expected: ['299 - "ünïcödé ✓"'] },
  ])("$given", ({ given, expected }) => {
    expect(Warnings.headers(given)).toEqual(expected);
  });

  it("keeps texts whole while they fit in 4096 runes", () => {
    const texts = [text(4000, "a"), text(96, "b")];
    expect(Warnings.headers(texts)).toEqual(texts.map(Warnings.header));
  });

  it("cuts every text to 256 runes once the total exceeds 4096, and stops when the budget is spent", () => {
    const texts = Array.from({ length: 20 }, (_, i) => text(300, String.fromCharCode(97 + i)));
    const out = Warnings.headers(texts);
    expect(out).toEqual(texts.slice(0, 16).map((t) => Warnings.header(t.slice(0, 256))));
  });

  it("cuts at rune boundaries, not UTF-16 units", () => {
    const astral = "😀".repeat(300);
    const out = Warnings.headers([astral, text(4000, "x")]);
    expect(out[0]).toBe(Warnings.header("😀".repeat(256)));
  });

  it("sends the distinct texts in order of first appearance, whole while they fit, else as prefixes", () => {
    const unquote = (h: string) => h.slice('299 - "'.length, -1).replace(/\\(["\\])/g, "$1");
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 600 }), { maxLength: 40 }), (texts) => {
        const out = Warnings.headers(texts).map(unquote);
        const distinct = [...new Set(texts.filter((t) => t !== "" && !/\p{Cc}/u.test(t)))];
        const total = distinct.reduce((sum, t) => sum + [...t].length, 0);
        if (total <= Warnings.TOTAL_RUNES) expect(out).toEqual(distinct);
        else {
          expect(out.length).toBeLessThanOrEqual(distinct.length);
          out.forEach((shown, i) => {
            expect(distinct[i]?.startsWith(shown)).toBe(true);
            expect([...shown].length).toBe(Math.min([...(distinct[i] ?? "")].length, Warnings.ITEM_RUNES));
          });
        }
      }),
    );
  });
});

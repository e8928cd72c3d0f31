/** Label and field selector parsing and matching: operator tables and properties. */

import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Selectors from "../../src/api/Selectors.ts";

const labels = { app: "web", tier: "front", n: "5" };

describe("label selectors", () => {
  it.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app=db", false],
    ["app!=db", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db)", true],
    ["app notin (web)", false],
    ["missing notin (x)", true],
    ["missing in (x)", false],
    ["app", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["app=web,tier=front", true],
    ["app=web,tier=back", false],
    ["app in (web, db),!missing", true],
    ["n>4", true],
    ["n<4", false],
  ])("%j matches: %s", (selector, expected) => {
    const parsed = Selectors.parseLabelSelector(selector);
    expect(Result.isSuccess(parsed)).toBe(true);
    if (Result.isSuccess(parsed)) expect(Selectors.matchesLabels(parsed.success, labels)).toBe(expected);
  });

  it.each([
    ["a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ["a in (b", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["=x", "found '=', expected: !, identifier, or 'end of string'"],
    ["a=b c", "found 'c', expected: ',' or 'end of string'"],
    ["a===b", "unable to parse requirement: found '=', expected: identifier"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["a,", "found '', expected: identifier after ','"],
    [
      "k>x",
      "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    ],
    [
      "a_=1",
      "unable to parse requirement: key: Invalid value: \"a_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  ])("rejects %j as the apiserver does", (selector, message) => {
    const parsed = Selectors.parseLabelSelector(selector);
    expect(parsed).toEqual(Result.fail(message));
  });

  it.each([
    ["a in ()", { a: "" }, true],
    ["a notin ()", { a: "x" }, true],
    ["a in (,b)", { a: "" }, true],
    ["in in (notin)", { in: "notin" }, true],
  ])("accepts the edge case %j", (selector, ls, expected) => {
    const parsed = Selectors.parseLabelSelector(selector);
    expect(Result.isSuccess(parsed) && Selectors.matchesLabels(parsed.success, ls)).toBe(expected);
  });

  const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
  const value = fc.stringMatching(/^[a-z0-9]{1,8}$/);

  it("= and != are complements on any labels", () => {
    fc.assert(
      fc.property(key, value, fc.dictionary(key, value), (k, v, ls) => {
        const eq = Selectors.parseLabelSelector(`${k}=${v}`);
        const ne = Selectors.parseLabelSelector(`${k}!=${v}`);
        if (Result.isFailure(eq) || Result.isFailure(ne)) return false;
        return Selectors.matchesLabels(eq.success, ls) !== Selectors.matchesLabels(ne.success, ls);
      }),
    );
  });

  it("in and notin are complements, exists and !exists too", () => {
    fc.assert(
      fc.property(
        key,
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.dictionary(key, value),
        (k, vs, ls) => {
          const inSel = Selectors.parseLabelSelector(`${k} in (${vs.join(",")})`);
          const notin = Selectors.parseLabelSelector(`${k} notin (${vs.join(",")})`);
          const ex = Selectors.parseLabelSelector(k);
          const nex = Selectors.parseLabelSelector(`!${k}`);
          if (
            Result.isFailure(inSel) ||
            Result.isFailure(notin) ||
            Result.isFailure(ex) ||
            Result.isFailure(nex)
          )
            return false;
          return (
            Selectors.matchesLabels(inSel.success, ls) !== Selectors.matchesLabels(notin.success, ls) &&
            Selectors.matchesLabels(ex.success, ls) !== Selectors.matchesLabels(nex.success, ls)
          );
        },
      ),
    );
  });
});

describe("field selectors", () => {
  const obj = {
    metadata: { name: "a,b", namespace: "ns" },
    spec: { hostNetwork: true },
    status: { phase: "Running" },
  };

  it.each([
    ["metadata.name=a\\,b", true],
    ["metadata.namespace==ns", true],
    ["metadata.namespace!=ns", false],
    ["status.phase=Running,metadata.namespace=ns", true],
    ["spec.hostNetwork=true", true],
    ["spec.nodeName=", true],
    ["spec.nodeName!=", false],
  ])("%j matches: %s", (selector, expected) => {
    const parsed = Selectors.parseFieldSelector(selector);
    expect(Result.isSuccess(parsed)).toBe(true);
    if (Result.isSuccess(parsed)) expect(Selectors.matchesFields(parsed.success, obj)).toBe(expected);
  });

  it.each(["metadata.name", "a in (b)"])("rejects %j", (selector) => {
    expect(Result.isFailure(Selectors.parseFieldSelector(selector))).toBe(true);
  });
});

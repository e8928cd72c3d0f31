/**
 * ConsistencyGate (docs/behaviour/processing.md#cause-order, docs/behaviour/watching.md#consistency): a table over the changing cause's presence and reason ×
 * an awaited version × the patch accumulated in this cycle × the patch carried over, the
 * outcome of a wait and of a re-read; plus the invariant that a carried-over patch never lets handlers run.
 */
import { describe, expect, it } from "@effect/vitest";
import type { Reason } from "@kopf/registry";
import * as fc from "fast-check";
import { ConsistencyGate } from "../src/index.ts";

const CONSISTENT = { _tag: "Consistent" };
const INCONSISTENT = { _tag: "Inconsistent" };
const NOT_REQUIRED = { _tag: "NotRequired" };

describe("gate", () => {
  it.each<[Reason | undefined, number | undefined, boolean, boolean, object]>([
    // no changing cause: nothing to gate, whatever else
    [undefined, undefined, true, true, NOT_REQUIRED],
    [undefined, 105, false, false, NOT_REQUIRED],
    // no version awaited: consistent unless a patch was carried over
    ["update", undefined, true, true, CONSISTENT],
    ["update", undefined, false, true, CONSISTENT],
    ["update", undefined, false, false, INCONSISTENT],
    // a version awaited, nothing to patch yet: wait for it
    ["update", 105, true, true, { _tag: "Wait", until: 105 }],
    ["create", 105, true, true, { _tag: "Wait", until: 105 }],
    ["noop", 105, true, true, { _tag: "Wait", until: 105 }],
    // a version awaited, but something is to be patched already: no wait, inconsistent
    ["update", 105, false, true, INCONSISTENT],
    ["delete", 105, false, true, INCONSISTENT],
    // gone: consistent upfront (for the goodbye log), unless a patch was carried over
    ["gone", 105, true, true, CONSISTENT],
    ["gone", 105, false, true, CONSISTENT],
    ["gone", 105, false, false, INCONSISTENT],
  ])(
    "reason %s, awaiting %s, patch empty %s, carried-over empty %s",
    (reason, time, empty, initiallyEmpty, expected) => {
      const gate = ConsistencyGate.gate({
        reason,
        consistencyTime: time,
        patchEmpty: empty,
        patchInitiallyEmpty: initiallyEmpty,
      });
      expect(gate).toEqual(expected);
    },
  );

  it("a carried-over patch never lets the changing handlers run", () => {
    const reason = fc.constantFrom<Reason>("create", "update", "delete", "resume", "noop", "free", "gone");
    fc.assert(
      fc.property(reason, fc.option(fc.double(), { nil: undefined }), fc.boolean(), (r, time, empty) => {
        const gate = ConsistencyGate.gate({
          reason: r,
          consistencyTime: time,
          patchEmpty: empty,
          patchInitiallyEmpty: false,
        });
        expect(gate).toEqual(INCONSISTENT);
      }),
    );
  });
});

describe("afterWait", () => {
  it.each([
    [true, { _tag: "Refresh" }],
    [false, INCONSISTENT],
  ])("slept fully %s ⇒ %j", (sleptFully, expected) => {
    expect(ConsistencyGate.afterWait({ sleptFully })).toEqual(expected);
  });
});

describe("afterRefresh", () => {
  it.each<[string, string | undefined, string | undefined, object, string | null]>([
    ["the server has nothing newer", "41", "41", CONSISTENT, null],
    ["the server has a newer state: it is awaited", "41", "43", INCONSISTENT, "43"],
    ["the re-read failed: consistency is assumed", "41", undefined, CONSISTENT, null],
    ["a state without a version, the server has one", undefined, "43", INCONSISTENT, "43"],
  ])("%s", (_, processed, current, gate, awaited) => {
    expect(ConsistencyGate.afterRefresh({ processed, current })).toEqual({ gate, awaited });
  });
});

/**
 * FinalizerDecision: the finalizer step of a processing cycle (docs/behaviour/processing.md#cause-order) as a table over
 * mustBlock × finalizer presence × deletion, with Kopf's log lines and the skipping of the
 * changing handlers; the release after handling (step 8) over event type × delays × deletion ×
 * finalizer presence; and totality for arbitrary bodies.
 */
import { describe, expect, it } from "@effect/vitest";
import type { RawEventType } from "@kopf/structs";
import * as fc from "fast-check";
import { FinalizerDecision } from "../src/index.ts";

const FIN = "kopf.zalando.org/KopfFinalizerMarker";
const ADD = {
  _tag: "Add",
  message: "Adding the finalizer, thus preventing the actual deletion.",
  skipsChangingHandlers: true,
};
const REMOVE_UNNEEDED = {
  _tag: "Remove",
  message: "Removing the finalizer, as there are no handlers requiring it.",
  skipsChangingHandlers: true,
};
const RELEASE = {
  _tag: "Remove",
  message: "Removing the finalizer, thus allowing the actual deletion.",
  skipsChangingHandlers: false,
};
const KEEP = { _tag: "Keep", skipsChangingHandlers: false };

const FINALIZERS = {
  absent: undefined,
  "others only": ["other"],
  ours: [FIN],
  "ours among others": ["other", FIN],
} as const;

const body = (finalizers: ReadonlyArray<string> | undefined, deleting: boolean) => ({
  metadata: {
    ...(finalizers !== undefined ? { finalizers } : {}),
    ...(deleting ? { deletionTimestamp: "2020-12-31T23:59:59Z" } : {}),
  },
});

describe("decide (step 5)", () => {
  it.each<[boolean, keyof typeof FINALIZERS, boolean, object]>([
    [true, "absent", false, ADD],
    [true, "others only", false, ADD],
    [true, "absent", true, KEEP], // deleting already: too late to block
    [true, "others only", true, KEEP],
    [true, "ours", false, KEEP],
    [true, "ours among others", false, KEEP],
    [true, "ours", true, KEEP],
    [true, "ours among others", true, KEEP],
    [false, "absent", false, KEEP],
    [false, "others only", false, KEEP],
    [false, "absent", true, KEEP],
    [false, "others only", true, KEEP],
    [false, "ours", false, REMOVE_UNNEEDED],
    [false, "ours among others", false, REMOVE_UNNEEDED],
    [false, "ours", true, REMOVE_UNNEEDED],
    [false, "ours among others", true, REMOVE_UNNEEDED],
  ])("mustBlock=%s, finalizers %s, deleting=%s", (mustBlock, finalizers, deleting, expected) => {
    const decision = FinalizerDecision.decide({
      body: body(FINALIZERS[finalizers], deleting),
      finalizer: FIN,
      mustBlock,
    });
    expect(decision).toEqual(expected);
  });

  it("uses the configured finalizer name", () => {
    const decision = FinalizerDecision.decide({
      body: body(["custom/fin"], false),
      finalizer: "custom/fin",
      mustBlock: false,
    });
    expect(decision._tag).toBe("Remove");
    expect(
      FinalizerDecision.decide({ body: body([FIN], false), finalizer: "custom/fin", mustBlock: true })._tag,
    ).toBe("Add");
  });
});

describe("decideRelease (step 8)", () => {
  it.each<[RawEventType | null, keyof typeof FINALIZERS, boolean, ReadonlyArray<number>, object]>([
    ["MODIFIED", "ours", true, [], RELEASE],
    ["MODIFIED", "ours among others", true, [], RELEASE],
    [null, "ours", true, [], RELEASE],
    ["ADDED", "ours", true, [], RELEASE],
    ["DELETED", "ours", true, [], KEEP], // gone already: the last state shows the finalizer
    ["MODIFIED", "ours", true, [10], KEEP], // handlers or daemons still need time
    ["MODIFIED", "ours", true, [0], KEEP],
    ["MODIFIED", "ours", false, [], KEEP], // not being deleted
    ["MODIFIED", "absent", true, [], KEEP], // nothing of ours to remove
    ["MODIFIED", "others only", true, [], KEEP],
  ])("%s, finalizers %s, deleting=%s, delays %j", (type, finalizers, deleting, delays, expected) => {
    const decision = FinalizerDecision.decideRelease({
      type,
      body: body(FINALIZERS[finalizers], deleting),
      finalizer: FIN,
      delays,
    });
    expect(decision).toEqual(expected);
  });
});

describe("toPatchFn", () => {
  it.each<[string, FinalizerDecision.FinalizerDecision, object, object]>([
    [
      "Add appends ours",
      ADD as FinalizerDecision.FinalizerDecision,
      { metadata: { finalizers: ["x"] } },
      { metadata: { finalizers: ["x", FIN] } },
    ],
    [
      "Add creates the list",
      ADD as FinalizerDecision.FinalizerDecision,
      {},
      { metadata: { finalizers: [FIN] } },
    ],
    [
      "Remove drops ours",
      RELEASE as FinalizerDecision.FinalizerDecision,
      { metadata: { finalizers: ["x", FIN] } },
      { metadata: { finalizers: ["x"] } },
    ],
    [
      "Remove cleans up",
      REMOVE_UNNEEDED as FinalizerDecision.FinalizerDecision,
      { metadata: { finalizers: [FIN] } },
      {},
    ],
  ])("%s", (_, decision, before, after) => {
    const target = structuredClone(before) as Record<string, unknown>;
    FinalizerDecision.toPatchFn(decision, FIN)?.(target);
    expect(target).toEqual(after);
  });

  it("Keep has no patch function", () => {
    expect(FinalizerDecision.toPatchFn(KEEP as FinalizerDecision.FinalizerDecision, FIN)).toBeUndefined();
  });
});

describe("properties", () => {
  it("both decisions are total for arbitrary bodies and never add to a deleting object", () => {
    fc.assert(
      fc.property(fc.anything(), fc.boolean(), fc.array(fc.double()), (b, mustBlock, delays) => {
        const decided = FinalizerDecision.decide({ body: b, finalizer: FIN, mustBlock });
        const released = FinalizerDecision.decideRelease({
          type: "MODIFIED",
          body: b,
          finalizer: FIN,
          delays,
        });
        expect(["Add", "Remove", "Keep"]).toContain(decided._tag);
        expect(["Remove", "Keep"]).toContain(released._tag);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.string()),
        fc.jsonValue().filter((ts) => ts !== null),
        (finalizers, deletionTimestamp) => {
          const b = { metadata: { finalizers, deletionTimestamp } };
          expect(FinalizerDecision.decide({ body: b, finalizer: FIN, mustBlock: true })._tag).not.toBe("Add");
        },
      ),
    );
  });

  it("a decision that changes the finalizer always skips the changing handlers in step 5", () => {
    fc.assert(
      fc.property(
        fc.option(fc.array(fc.constantFrom(FIN, "x"))),
        fc.boolean(),
        fc.boolean(),
        (fins, deleting, mustBlock) => {
          const decision = FinalizerDecision.decide({
            body: body(fins ?? undefined, deleting),
            finalizer: FIN,
            mustBlock,
          });
          expect(decision.skipsChangingHandlers).toBe(decision._tag !== "Keep");
        },
      ),
    );
  });
});

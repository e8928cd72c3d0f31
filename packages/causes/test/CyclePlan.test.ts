/**
 * CyclePlan: the pure plan of a processing cycle's changing step, as a table over the cause ×
 * the handlers' outcome × the finalizer's state × the consistency state, and property-tested for
 * its invariants over every combination: the finalizer is never removed while a changing handler
 * is pending; at most one finalizer operation per cycle; no changing handler runs in a cycle that
 * changes the finalizer or on an inconsistent state; nothing is applied for a DELETED event.
 */
import { describe, expect, it } from "@effect/vitest";
import type { Reason } from "@kopf/registry";
import type { RawBody, RawEventType } from "@kopf/structs";
import * as fc from "fast-check";
import { CyclePlan } from "../src/index.ts";

const FIN = "kopf.zalando.org/KopfFinalizerMarker";

const body = (finalizer: boolean, deleting: boolean): RawBody =>
  ({
    metadata: {
      name: "e1",
      ...(finalizer ? { finalizers: [FIN] } : {}),
      ...(deleting ? { deletionTimestamp: "2020-12-31T23:59:59Z" } : {}),
    },
  }) as RawBody;

/** The consistency states: nothing awaited; awaited with an empty or a non-empty patch; a carried patch. */
const CONSISTENCY = {
  "none awaited": { consistencyTime: undefined, patchEmpty: true, patchInitiallyEmpty: true },
  "awaited, patch empty": { consistencyTime: 1000, patchEmpty: true, patchInitiallyEmpty: true },
  "awaited, patch pending": { consistencyTime: 1000, patchEmpty: false, patchInitiallyEmpty: true },
  "carried patch": { consistencyTime: undefined, patchEmpty: false, patchInitiallyEmpty: false },
} as const;

const facts = (
  reason: Reason | undefined,
  state: { finalizer: boolean; deleting: boolean; mustBlock: boolean },
  consistency: keyof typeof CONSISTENCY = "none awaited",
  type: RawEventType | null = "MODIFIED",
): CyclePlan.Facts => ({
  type,
  body: body(state.finalizer, state.deleting),
  finalizer: FIN,
  mustBlock: state.mustBlock,
  reason,
  ...CONSISTENCY[consistency],
});

const summary = (
  f: CyclePlan.Facts,
  handled: CyclePlan.Handled,
  delays: ReadonlyArray<number>,
  slept = true,
) => {
  let planned = CyclePlan.plan(f);
  const waited = planned.gate._tag === "Wait";
  if (waited) planned = CyclePlan.afterWait(planned, { sleptFully: slept });
  const step = CyclePlan.changingStep(planned);
  const conclusion = CyclePlan.conclude(f, planned, {
    handled: step._tag === "RunHandlers" ? handled : "NotRun",
    delays,
  });
  const gate = `${waited ? "Wait→" : ""}${planned.gate._tag}`;
  const diffBase = conclusion.storeDiffBase ? " diff-base" : "";
  const applied = conclusion.apply ? "" : " not-applied";
  return `${planned.blocking._tag} ${gate} ${step._tag}${diffBase} release:${conclusion.release._tag}${applied}`;
};

const NO_FIN = { finalizer: false, deleting: false, mustBlock: false };
const NEEDS_FIN = { finalizer: false, deleting: false, mustBlock: true };
const HOLDS_FIN = { finalizer: true, deleting: false, mustBlock: true };
const UNNEEDED_FIN = { finalizer: true, deleting: false, mustBlock: false };
const DELETING = { finalizer: true, deleting: true, mustBlock: true };
const DELETING_OTHERS = { finalizer: false, deleting: true, mustBlock: true };

describe("CyclePlan", () => {
  // [title, facts, handled, delays, slept fully, expected]
  const table: ReadonlyArray<
    readonly [
      string,
      CyclePlan.Facts,
      CyclePlan.Handled,
      ReadonlyArray<number>,
      boolean,
      ReturnType<typeof summary>,
    ]
  > = [
    [
      "create, no finalizer needed, done",
      facts("create", NO_FIN),
      "Done",
      [],
      true,
      "Keep Consistent RunHandlers diff-base release:Keep",
    ],
    [
      "create, finalizer needed: added first, no handlers",
      facts("create", NEEDS_FIN),
      "Done",
      [],
      true,
      "Add NotRequired None release:Keep",
    ],
    [
      "create, finalizer held, handler retrying",
      facts("create", HOLDS_FIN),
      "Pending",
      [60],
      true,
      "Keep Consistent RunHandlers release:Keep",
    ],
    [
      "update with an unneeded finalizer: removed, no handlers",
      facts("update", UNNEEDED_FIN),
      "Done",
      [],
      true,
      "Remove NotRequired None release:Keep",
    ],
    [
      "update, awaited echo arrived",
      facts("update", HOLDS_FIN, "awaited, patch empty"),
      "Done",
      [],
      true,
      "Keep Wait→Consistent RunHandlers diff-base release:Keep",
    ],
    [
      "update, a new event cut the wait short",
      facts("update", HOLDS_FIN, "awaited, patch empty"),
      "Done",
      [],
      false,
      "Keep Wait→Inconsistent None release:Keep",
    ],
    [
      "update, awaited with a patch already pending",
      facts("update", HOLDS_FIN, "awaited, patch pending"),
      "Done",
      [],
      true,
      "Keep Inconsistent None release:Keep",
    ],
    [
      "update with a carried patch",
      facts("update", HOLDS_FIN, "carried patch"),
      "Done",
      [],
      true,
      "Keep Inconsistent None release:Keep",
    ],
    [
      "delete, handlers done: released",
      facts("delete", DELETING),
      "Done",
      [],
      true,
      "Keep Consistent RunHandlers diff-base release:Remove",
    ],
    [
      "delete, handler retrying: held",
      facts("delete", DELETING),
      "Pending",
      [30],
      true,
      "Keep Consistent RunHandlers release:Keep",
    ],
    [
      "delete, handler pending without a delay: still held",
      facts("delete", DELETING),
      "Pending",
      [],
      true,
      "Keep Consistent RunHandlers release:Keep",
    ],
    [
      "delete, daemons still stopping: held",
      facts("delete", DELETING),
      "Done",
      [1],
      true,
      "Keep Consistent RunHandlers diff-base release:Keep",
    ],
    [
      "delete on an inconsistent state: neither run nor released",
      facts("delete", DELETING, "awaited, patch pending"),
      "Done",
      [],
      true,
      "Keep Inconsistent None release:Keep",
    ],
    [
      "free: another's finalizer only",
      facts("free", DELETING_OTHERS),
      "Done",
      [],
      true,
      "Keep Consistent Log release:Keep",
    ],
    [
      "gone: a DELETED event applies nothing",
      facts("gone", DELETING, "awaited, patch empty", "DELETED"),
      "Done",
      [],
      true,
      "Keep Consistent Log release:Keep not-applied",
    ],
    ["noop", facts("noop", HOLDS_FIN), "Done", [], true, "Keep Consistent Log release:Keep"],
    [
      "resume, done",
      facts("resume", HOLDS_FIN, "none awaited", null),
      "Done",
      [],
      true,
      "Keep Consistent RunHandlers diff-base release:Keep",
    ],
    [
      "resume, nothing left to run",
      facts("resume", HOLDS_FIN, "none awaited", null),
      "Skipped",
      [],
      true,
      "Keep Consistent RunHandlers diff-base release:Keep",
    ],
    [
      "no changing cause (stealth), deleting without handlers: released",
      facts(undefined, { ...DELETING, mustBlock: true }),
      "NotRun",
      [],
      true,
      "Keep NotRequired None release:Remove",
    ],
  ];

  it.each(table)("%s", (_, f, handled, delays, slept, expected) => {
    expect(summary(f, handled, delays, slept)).toBe(expected);
  });

  const arbitraryFacts = fc.record({
    type: fc.constantFrom<RawEventType | null>(null, "ADDED", "MODIFIED", "DELETED"),
    reason: fc.constantFrom<Reason | undefined>(
      undefined,
      "create",
      "update",
      "delete",
      "resume",
      "noop",
      "free",
      "gone",
    ),
    finalizer: fc.boolean(),
    deleting: fc.boolean(),
    mustBlock: fc.boolean(),
    consistency: fc.constantFrom(...(Object.keys(CONSISTENCY) as Array<keyof typeof CONSISTENCY>)),
  });
  const arbitraryOutcome = fc.record({
    handled: fc.constantFrom<CyclePlan.Handled>("Done", "Skipped", "Pending"),
    delays: fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 3 }),
    slept: fc.boolean(),
  });
  type Drawn = typeof arbitraryFacts extends fc.Arbitrary<infer T> ? T : never;
  const cycle = (
    a: Drawn,
    o: { handled: CyclePlan.Handled; delays: ReadonlyArray<number>; slept: boolean },
  ) => {
    const f = facts(a.reason, a, a.consistency, a.type);
    let planned = CyclePlan.plan(f);
    if (planned.gate._tag === "Wait") planned = CyclePlan.afterWait(planned, { sleptFully: o.slept });
    const step = CyclePlan.changingStep(planned);
    const handled = step._tag === "RunHandlers" ? o.handled : "NotRun";
    return {
      f,
      planned,
      step,
      handled,
      conclusion: CyclePlan.conclude(f, planned, { handled, delays: o.delays }),
    };
  };

  it("property: never removes the finalizer while a changing handler is pending", () => {
    fc.assert(
      fc.property(arbitraryFacts, arbitraryOutcome, (a, o) => {
        const { handled, conclusion } = cycle(a, o);
        if (handled === "Pending") expect(conclusion.release._tag).toBe("Keep");
      }),
    );
  });

  it("property: at most one finalizer operation per cycle; releasing needs the finalizer and a deletion", () => {
    fc.assert(
      fc.property(arbitraryFacts, arbitraryOutcome, (a, o) => {
        const { planned, conclusion } = cycle(a, o);
        const operations = [planned.blocking._tag, conclusion.release._tag].filter((t) => t !== "Keep");
        expect(operations.length).toBeLessThanOrEqual(1);
        if (conclusion.release._tag === "Remove")
          expect(a.finalizer && a.deleting && a.type !== "DELETED").toBe(true);
      }),
    );
  });

  it("property: no changing handler runs when the finalizer changes or on an inconsistent state", () => {
    fc.assert(
      fc.property(arbitraryFacts, arbitraryOutcome, (a, o) => {
        const { planned, step } = cycle(a, o);
        if (planned.blocking._tag !== "Keep" || planned.gate._tag === "Inconsistent")
          expect(step._tag).toBe("None");
        if (step._tag === "RunHandlers") expect(planned.gate._tag).toBe("Consistent");
      }),
    );
  });

  it("property: the diff-base is stored only for a fully handled cause; nothing is applied for DELETED", () => {
    fc.assert(
      fc.property(arbitraryFacts, arbitraryOutcome, (a, o) => {
        const { handled, conclusion } = cycle(a, o);
        expect(conclusion.storeDiffBase).toBe(handled === "Done" || handled === "Skipped");
        expect(conclusion.markFullyHandled).toBe(conclusion.storeDiffBase);
        expect(conclusion.apply).toBe(a.type !== "DELETED");
      }),
    );
  });
});

/**
 * ChangeCause.detectReason: the §16 C reason-detection matrix (Kopf's
 * tests/causation/test_detection.py) as combinatorial tables over event types × finalizer sets ×
 * deletionTimestamp × stored essence × initial, the resume rows of §3.2, and properties:
 * deleting with our finalizer never creates, DELETED is always gone, detection is total.
 */
import { describe, expect, it } from "@effect/vitest";
import { Diff, type RawEventType } from "@kopf/structs";
import * as fc from "fast-check";
import { ChangeCause } from "../src/index.ts";

const FIN = "fin";
const CONTENT = { spec: { field: "value" } };

const TYPES: ReadonlyArray<RawEventType | null> = [null, "ADDED", "MODIFIED", "UNKNOWN" as RawEventType];

const FINALIZERS_WITHOUT_OURS = { absent: undefined, empty: [], others: ["irrelevant", "another"] } as const;
const FINALIZERS_WITH_OURS = { ours: [FIN], mixed: ["irrelevant", FIN, "another"] } as const;
const ALL_FINALIZERS = { ...FINALIZERS_WITHOUT_OURS, ...FINALIZERS_WITH_OURS };

const NOT_DELETING = { absent: undefined, null: null } as const;
const DELETING = { some: "some" } as const;
const ALL_DELETIONS = { ...NOT_DELETING, ...DELETING };

const NO_ESSENCE = { "no essence": null, "undefined essence": undefined } as const;
const SAME_ESSENCE = { "same essence": { spec: { field: "value" } } } as const;
const OTHER_ESSENCE = { "other essence": { spec: { field: "other" } } } as const;
const ALL_ESSENCES = { ...NO_ESSENCE, ...SAME_ESSENCE, ...OTHER_ESSENCE };

type Row = readonly [string, ChangeCause.DetectionInput];

const body = (
  finalizers: ReadonlyArray<string> | undefined,
  deletionTimestamp: string | null | undefined,
) => ({
  metadata: {
    ...(finalizers !== undefined ? { finalizers } : {}),
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
  },
  ...CONTENT,
});

/** Every combination of the given axes, named for the test title. */
const matrix = (axes: {
  readonly types: ReadonlyArray<RawEventType | null>;
  readonly finalizers: Readonly<Record<string, ReadonlyArray<string> | undefined>>;
  readonly deletions: Readonly<Record<string, string | null | undefined>>;
  readonly essences: Readonly<Record<string, unknown>>;
  readonly initials: ReadonlyArray<boolean>;
}): ReadonlyArray<Row> =>
  axes.types.flatMap((type) =>
    Object.entries(axes.finalizers).flatMap(([finName, finalizers]) =>
      Object.entries(axes.deletions).flatMap(([delName, deletionTimestamp]) =>
        Object.entries(axes.essences).flatMap(([oldName, old]) =>
          axes.initials.map(
            (initial): Row => [
              `${String(type)} / finalizers ${finName} / deletionTimestamp ${delName} / ${oldName} / initial=${initial}`,
              {
                type,
                body: body(finalizers, deletionTimestamp),
                finalizer: FIN,
                old,
                diff: Diff.diff(old ?? null, CONTENT),
                initial,
              },
            ],
          ),
        ),
      ),
    ),
  );

describe("detectReason (§16 C)", () => {
  it.each(
    matrix({
      types: ["DELETED"],
      finalizers: ALL_FINALIZERS,
      deletions: ALL_DELETIONS,
      essences: ALL_ESSENCES,
      initials: [false, true],
    }),
  )("gone: %s", (_, input) => {
    expect(ChangeCause.detectReason(input).reason).toBe("gone");
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: FINALIZERS_WITHOUT_OURS,
      deletions: DELETING,
      essences: ALL_ESSENCES,
      initials: [false, true],
    }),
  )("free: %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({
      reason: "free",
      initial: input.initial,
      deleted: true,
    });
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: FINALIZERS_WITH_OURS,
      deletions: DELETING,
      essences: ALL_ESSENCES,
      initials: [false, true],
    }),
  )("delete: %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({
      reason: "delete",
      initial: input.initial,
      deleted: true,
    });
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: ALL_FINALIZERS,
      deletions: NOT_DELETING,
      essences: NO_ESSENCE,
      initials: [false, true],
    }),
  )("create (never initial): %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({ reason: "create", initial: false, deleted: false });
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: ALL_FINALIZERS,
      deletions: NOT_DELETING,
      essences: SAME_ESSENCE,
      initials: [false],
    }),
  )("noop: %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({ reason: "noop", initial: false, deleted: false });
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: ALL_FINALIZERS,
      deletions: NOT_DELETING,
      essences: SAME_ESSENCE,
      initials: [true],
    }),
  )("resume: %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({ reason: "resume", initial: true, deleted: false });
  });

  it.each(
    matrix({
      types: TYPES,
      finalizers: ALL_FINALIZERS,
      deletions: NOT_DELETING,
      essences: OTHER_ESSENCE,
      initials: [false, true],
    }),
  )("update (initial kept): %s", (_, input) => {
    expect(ChangeCause.detectReason(input)).toEqual({
      reason: "update",
      initial: input.initial,
      deleted: false,
    });
  });

  it("an empty stored essence is an essence (not a creation)", () => {
    const input = { type: "MODIFIED", body: {}, finalizer: FIN, old: {}, diff: [], initial: false } as const;
    expect(ChangeCause.detectReason(input).reason).toBe("noop");
  });
});

describe("reason vocabulary", () => {
  it.each([
    ["create", true, "creation", undefined],
    ["update", true, "updating", undefined],
    ["delete", true, "deletion", undefined],
    ["resume", true, "resuming", undefined],
    ["noop", false, "noop", "Something has changed, but we are not interested (the essence is the same)."],
    ["free", false, "free", "Deletion, but we are done with it, and we do not care."],
    ["gone", false, "gone", "Deleted, really deleted, and we are notified."],
  ] as const)("%s: handler reason %s, title %s", (reason, handler, title, message) => {
    expect(ChangeCause.isHandlerReason(reason)).toBe(handler);
    expect(ChangeCause.title(reason)).toBe(title);
    expect(ChangeCause.reactorMessage(reason)).toBe(message);
  });
});

describe("detectReason properties", () => {
  const eventType = fc.constantFrom<RawEventType | null>(
    null,
    "ADDED",
    "MODIFIED",
    "DELETED",
    "BOOKMARK",
    "ERROR",
  );
  const diff = fc.array(
    fc.record({
      op: fc.constantFrom("add", "change", "remove" as const),
      field: fc.array(fc.string(), { maxLength: 3 }),
      old: fc.jsonValue(),
      new: fc.jsonValue(),
    }),
    { maxLength: 3 },
  );
  const finalizers = fc.array(fc.constantFrom(FIN, "other", "another"), { maxLength: 3 });

  it("a deleting body with our finalizer never yields create", () => {
    fc.assert(
      fc.property(
        eventType,
        finalizers,
        fc.jsonValue().filter((ts) => ts !== null),
        fc.option(fc.jsonValue(), { nil: null }),
        diff,
        fc.boolean(),
        (type, others, deletionTimestamp, old, d, initial) => {
          const input = {
            type,
            body: { metadata: { finalizers: [...others, FIN], deletionTimestamp } },
            finalizer: FIN,
            old,
            diff: d,
            initial,
          };
          expect(ChangeCause.detectReason(input).reason).not.toBe("create");
          expect(["delete", "gone"]).toContain(ChangeCause.detectReason(input).reason);
        },
      ),
    );
  });

  it("a DELETED event always yields gone", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), diff, fc.boolean(), (b, old, d, initial) => {
        const input = { type: "DELETED" as const, body: b, finalizer: FIN, old, diff: d, initial };
        expect(ChangeCause.detectReason(input).reason).toBe("gone");
      }),
    );
  });

  it("is total for arbitrary bodies and essences, and only create resets initial", () => {
    const metadata = fc.oneof(
      fc.anything(),
      fc.record(
        { deletionTimestamp: fc.anything(), finalizers: fc.oneof(fc.anything(), finalizers) },
        { requiredKeys: [] },
      ),
    );
    const anyBody = fc.oneof(fc.anything(), fc.jsonValue(), fc.record({ metadata }));
    fc.assert(
      fc.property(eventType, anyBody, fc.anything(), diff, fc.boolean(), (type, b, old, d, initial) => {
        const detected = ChangeCause.detectReason({ type, body: b, finalizer: FIN, old, diff: d, initial });
        expect(["create", "update", "delete", "resume", "noop", "free", "gone"]).toContain(detected.reason);
        expect(detected.initial).toBe(detected.reason === "create" ? false : initial);
      }),
    );
  });
});

/**
 * ChangeCause.detectReason: the docs/behaviour/causes.md#reasons reason-detection matrix (Kopf's
 * tests/causation/test_detection.py) as combinatorial tables over event types × finalizer sets ×
 * deletionTimestamp × stored essence × initial, the resume rows of docs/behaviour/causes.md#reasons, and properties:
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

const isDeleting = (input: ChangeCause.DetectionInput): boolean =>
  (input.body as { metadata: { deletionTimestamp?: unknown } }).metadata.deletionTimestamp != null;

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

type Axes = Parameters<typeof matrix>[0];
type Expect = (input: ChangeCause.DetectionInput) => ChangeCause.Detection;

const BOTH = [false, true];
const NOT_DELETING_AXES = { types: TYPES, finalizers: ALL_FINALIZERS, deletions: NOT_DELETING };

/** The docs/behaviour/causes.md#reasons groups: the axes of each group and the detection every row of it expects. */
const GROUPS: ReadonlyArray<readonly [string, Axes, Expect]> = [
  [
    "gone",
    {
      types: ["DELETED"],
      finalizers: ALL_FINALIZERS,
      deletions: ALL_DELETIONS,
      essences: ALL_ESSENCES,
      initials: BOTH,
    },
    (input) => ({ reason: "gone", initial: input.initial, deleted: isDeleting(input) }),
  ],
  [
    "free",
    {
      types: TYPES,
      finalizers: FINALIZERS_WITHOUT_OURS,
      deletions: DELETING,
      essences: ALL_ESSENCES,
      initials: BOTH,
    },
    (input) => ({ reason: "free", initial: input.initial, deleted: true }),
  ],
  [
    "delete",
    {
      types: TYPES,
      finalizers: FINALIZERS_WITH_OURS,
      deletions: DELETING,
      essences: ALL_ESSENCES,
      initials: BOTH,
    },
    (input) => ({ reason: "delete", initial: input.initial, deleted: true }),
  ],
  [
    "create (never initial)",
    { ...NOT_DELETING_AXES, essences: NO_ESSENCE, initials: BOTH },
    () => ({ reason: "create", initial: false, deleted: false }),
  ],
  [
    "noop",
    { ...NOT_DELETING_AXES, essences: SAME_ESSENCE, initials: [false] },
    () => ({ reason: "noop", initial: false, deleted: false }),
  ],
  [
    "resume",
    { ...NOT_DELETING_AXES, essences: SAME_ESSENCE, initials: [true] },
    () => ({ reason: "resume", initial: true, deleted: false }),
  ],
  [
    "update (initial kept)",
    { ...NOT_DELETING_AXES, essences: OTHER_ESSENCE, initials: BOTH },
    (input) => ({ reason: "update", initial: input.initial, deleted: false }),
  ],
];

describe("detectReason (docs/behaviour/causes.md#reasons)", () => {
  it.each(
    GROUPS.flatMap(([group, axes, expected]) =>
      matrix(axes).map(([title, input]) => [`${group}: ${title}`, input, expected(input)] as const),
    ),
  )("%s", (_, input, expected) => {
    expect(ChangeCause.detectReason(input)).toEqual(expected);
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

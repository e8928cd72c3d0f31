/**
 * Object metadata helpers: uids are RFC 4122 version 4 whatever the random source gives; times
 * format as metav1.Time, also when the same second repeats; an update is a no-op exactly when the
 * objects are equal but for the resourceVersion and the managedFields' times.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTime } from "../../src/api/internal/Time.ts";
import { isNoop, makeUid } from "../../src/api/ObjectMeta.ts";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("makeUid", () => {
  it("is a version 4 uid for any random draws, the extremes included", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 4,
          maxLength: 4,
        }),
        (draws) => {
          let i = 0;
          expect(makeUid(() => draws[i++] as number)).toMatch(V4);
        },
      ),
    );
    expect(makeUid(() => 0)).toBe("00000000-0000-4000-8000-000000000000");
    expect(makeUid(() => 0.9999999999)).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
  });
});

describe("formatTime", () => {
  it("matches the ISO form without fraction for any sequence of instants", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { maxLength: 20 }), (instants) => {
        for (const ms of [...instants, ...instants.map((m) => m - (m % 1000))])
          expect(formatTime(ms)).toBe(`${new Date(ms).toISOString().slice(0, 19)}Z`);
      }),
    );
  });
});

describe("isNoop", () => {
  /** The rule as kube-apiserver states it: equal once the version and the entries' times are gone. */
  const reference = (old: Record<string, unknown>, next: Record<string, unknown>): boolean => {
    const strip = (o: Record<string, unknown>) => {
      const metadata = (typeof o.metadata === "object" && o.metadata !== null ? o.metadata : {}) as Record<
        string,
        unknown
      >;
      const { resourceVersion: _r, managedFields, ...meta } = metadata;
      const entries = Array.isArray(managedFields)
        ? managedFields.map((e) => {
            const { time: _t, ...rest } = (typeof e === "object" && e !== null ? e : {}) as Record<
              string,
              unknown
            >;
            return rest;
          })
        : [];
      return JSON.stringify(sorted({ ...o, metadata: { ...meta, managedFields: entries } }));
    };
    return strip(old) === strip(next);
  };
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
          )
        : value;

  const small = fc.oneof(fc.constant("a"), fc.constant("b"), fc.constant(1), fc.constant(null));
  const entry = fc.record(
    {
      manager: fc.constantFrom("m", "n"),
      time: fc.constantFrom("t1", "t2"),
      fieldsV1: fc.constantFrom({}, { "f:a": {} }),
    },
    { requiredKeys: [] },
  );
  const object = fc.record(
    {
      metadata: fc.record(
        {
          name: fc.constant("x"),
          resourceVersion: fc.constantFrom("1", "2"),
          labels: fc.dictionary(fc.constantFrom("l1", "l2"), small),
          managedFields: fc.oneof(fc.array(entry, { maxLength: 3 }), fc.constant("not a list")),
        },
        { requiredKeys: [] },
      ),
      spec: fc.dictionary(fc.constantFrom("s1", "s2"), small),
      status: small,
    },
    { requiredKeys: [] },
  );

  it("agrees with the rule on generated pairs, equal or not", () => {
    fc.assert(
      fc.property(object, object, (old, next) => {
        expect(isNoop(old, next)).toBe(reference(old, next));
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees on pairs that differ only in what the rule ignores, or in one more field", () => {
    fc.assert(
      fc.property(
        object,
        fc.constantFrom("1", "9"),
        fc.constantFrom("t1", "t9"),
        fc.boolean(),
        (old, rv, time, touch) => {
          const metadata = (old.metadata ?? {}) as Record<string, unknown>;
          const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : undefined;
          const next = {
            ...old,
            ...(touch ? { spec: { ...(old.spec ?? {}), s9: "changed" } } : {}),
            metadata: {
              ...metadata,
              resourceVersion: rv,
              ...(entries === undefined ? {} : { managedFields: entries.map((e) => ({ ...e, time })) }),
            },
          };
          expect(isNoop(old, next)).toBe(reference(old, next));
          expect(isNoop(old, next)).toBe(!touch);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

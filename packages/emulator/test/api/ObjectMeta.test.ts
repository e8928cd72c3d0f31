/** Object metadata helpers: uids are RFC 4122 version 4 whatever the random source gives; times format as metav1.Time, also when the same second repeats. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTime } from "../../src/api/internal/Time.ts";
import { makeUid } from "../../src/api/ObjectMeta.ts";

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

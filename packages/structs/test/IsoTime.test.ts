// IsoTime: Kopf's timestamp format (docs/behaviour/progress.md#records) as epoch microseconds, parsing and formatting.
import * as DateTime from "effect/DateTime";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as IsoTime from "../src/IsoTime.ts";
import { failureOf } from "./support/failureOf.ts";

// Expected micros and UTC renderings computed with CPython's datetime.
const vectors: ReadonlyArray<[string, number, string]> = [
  ["2000-01-01T00:00:00.000000", 946684800000000, "2000-01-01T00:00:00.000000+00:00"],
  ["2000-01-01T09:08:07.654321", 946717687654321, "2000-01-01T09:08:07.654321+00:00"],
  ["2000-01-01T00:00:00.000000Z", 946684800000000, "2000-01-01T00:00:00.000000+00:00"],
  ["2000-01-01T09:08:07.654321Z", 946717687654321, "2000-01-01T09:08:07.654321+00:00"],
  ["2000-01-01T00:00:00.000000+00:00", 946684800000000, "2000-01-01T00:00:00.000000+00:00"],
  ["2000-01-01T09:08:07.654321+00:00", 946717687654321, "2000-01-01T09:08:07.654321+00:00"],
  ["2000-01-01T00:00:00.000000-11:00", 946724400000000, "2000-01-01T11:00:00.000000+00:00"],
  ["2000-01-01T09:08:07.654321+11:00", 946678087654321, "1999-12-31T22:08:07.654321+00:00"],
  ["2020-12-31T23:59:59.123456+00:00", 1609459199123456, "2020-12-31T23:59:59.123456+00:00"],
  ["1969-12-31T23:59:59.999999+00:00", -1, "1969-12-31T23:59:59.999999+00:00"],
  ["2024-02-29T12:00:00+00:00", 1709208000000000, "2024-02-29T12:00:00.000000+00:00"],
  ["1900-03-01T00:00:00+00:00", -2203891200000000, "1900-03-01T00:00:00.000000+00:00"],
  ["0001-01-01T00:00:00+00:00", -62135596800000000, "0001-01-01T00:00:00.000000+00:00"],
  ["2255-06-01T00:00:00.000001+00:00", 9006768000000001, "2255-06-01T00:00:00.000001+00:00"],
];

describe("parse", () => {
  it.each(vectors)("parses %s", (text, micros) => {
    expect(Result.getOrThrow(IsoTime.parse(text))).toBe(micros);
  });

  it.each<[string, number]>([
    ["2020-12-31T23:59:59Z", 1609459199000000],
    ["2020-12-31T23:59:59.1Z", 1609459199100000],
    ["2020-12-31T23:59:59.1234567891Z", 1609459199123456],
    ["2020-12-31T23:59:59,5Z", 1609459199500000],
    ["2020-12-31 23:59:59+00:00", 1609459199000000],
    ["2020-12-31T23:59Z", 1609459140000000],
    ["2020-12-31T23Z", 1609455600000000],
    ["2020-12-31", 1609372800000000],
    ["20201231T235959Z", 1609459199000000],
    ["2020-12-31T23:59:59+0130", 1609453799000000],
    ["2020-12-31T23:59:59-01", 1609462799000000],
  ])("accepts the variant %s", (text, micros) => {
    expect(Result.getOrThrow(IsoTime.parse(text))).toBe(micros);
  });

  it.each<[string, IsoTime.IsoTimeErrorReason]>([
    ["", "Malformed"],
    ["yesterday", "Malformed"],
    ["2020-12-31T", "Malformed"],
    ["2020-12-31T23:59:59+", "Malformed"],
    ["2020-12-31T23:59:59 UTC", "Malformed"],
    ["2020-13-01T00:00:00Z", "OutOfRange"],
    ["2021-02-29T00:00:00Z", "OutOfRange"],
    ["2020-12-31T24:00:00Z", "OutOfRange"],
    ["2020-12-31T23:60:00Z", "OutOfRange"],
    ["2020-12-31T23:59:60Z", "OutOfRange"],
    ["2020-12-31T23:59:59+24:00", "OutOfRange"],
  ])("rejects %j as %s", (text, reason) => {
    const failure = failureOf(IsoTime.parse(text));
    expect(failure.reason).toBe(reason);
    expect(failure.message).toContain(JSON.stringify(text));
  });
});

describe("format", () => {
  it.each(vectors)("formats the instant of %s", (_, micros, expected) => {
    expect(IsoTime.format(micros)).toBe(expected);
  });

  it("rounds fractions of a microsecond", () => {
    expect(IsoTime.format(0.6)).toBe("1970-01-01T00:00:00.000001+00:00");
  });

  it("renders non-finite numbers visibly", () => {
    expect(IsoTime.format(Number.NaN)).toBe("NaN");
  });

  it("round-trips Kopf-written strings exactly", () => {
    const micros = fc.integer({ min: -62135596800000000, max: 9007199254740991 });
    fc.assert(
      fc.property(micros, (m) => {
        const text = IsoTime.format(m);
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
        expect(Result.getOrThrow(IsoTime.parse(text))).toBe(m);
      }),
    );
  });

  it("agrees with JavaScript dates at millisecond precision", () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e12, max: 8.64e12 }), (ms) => {
        const iso = new Date(ms).toISOString();
        if (!iso.startsWith("-") && !iso.startsWith("+")) {
          expect(IsoTime.format(IsoTime.fromMillis(ms))).toBe(iso.replace("Z", "000+00:00"));
        }
      }),
    );
  });
});

describe("millis and now", () => {
  it.each<[number, number]>([
    [0, 0],
    [1, 1000],
    [-1, -1000],
    [1609459199123, 1609459199123000],
  ])("fromMillis(%d) is %d", (ms, micros) => {
    expect(IsoTime.fromMillis(ms)).toBe(micros);
    expect(IsoTime.toMillis(micros)).toBe(ms);
  });

  it("rounds down to milliseconds", () => {
    expect(IsoTime.toMillis(1999)).toBe(1);
    expect(IsoTime.toMillis(-1)).toBe(-1);
  });

  it("reads now from the Clock", async () => {
    const micros = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(1609459199123);
        return yield* IsoTime.now;
      }).pipe(Effect.provide(TestClock.layer())),
    );
    expect(IsoTime.format(micros)).toBe("2020-12-31T23:59:59.123000+00:00");
  });
});

describe("calendar arithmetic against Effect's DateTime", () => {
  // Years 0001–9999: the range Kopf's (Python's) timestamps can hold.
  const days = fc.integer({ min: -719_162, max: 2_932_896 });

  it("civilFromDays gives DateTime's UTC date of every day", () => {
    fc.assert(
      fc.property(days, (day) => {
        const parts = DateTime.toPartsUtc(DateTime.makeUnsafe(day * 86_400_000));
        expect(IsoTime.civilFromDays(day)).toEqual([parts.year, parts.month, parts.day]);
      }),
    );
  });

  // Epoch microseconds are exact integers from 1685 to 2254 (within ±2^53).
  const exactDays = fc.integer({ min: -104_000, max: 104_000 });

  it("format and parse agree with DateTime to the millisecond, with the microseconds kept", () => {
    fc.assert(
      fc.property(
        exactDays,
        fc.integer({ min: 0, max: 86_399_999 }),
        fc.integer({ min: 0, max: 999 }),
        (day, ms, us) => {
          const millis = day * 86_400_000 + ms;
          const micros = millis * 1000 + us;
          const text = IsoTime.format(micros);
          const iso = DateTime.formatIso(DateTime.makeUnsafe(millis)); // "YYYY-MM-DDTHH:MM:SS.mmmZ"
          expect(text).toBe(`${iso.slice(0, 23)}${String(us).padStart(3, "0")}+00:00`);
          expect(IsoTime.parse(text)).toEqual(Result.succeed(micros));
        },
      ),
    );
  });
});

/**
 * Timestamps as Kopf stores them (docs/behaviour/progress.md#records): ISO-8601 text with microseconds and a UTC offset
 * (`2020-12-31T23:59:59.123456+00:00`), held in memory as epoch microseconds (plain numbers,
 * exact for dates before the year 2255). Formatting and parsing are pure; `now` reads Effect's
 * `Clock`, so `TestClock` drives it.
 *
 * The calendar arithmetic stays hand-written on purpose, with Effect's `DateTime` as its oracle
 * (property-tested over the years 0001–9999): the text must match Kopf's byte for byte with six
 * fractional digits, which `DateTime` (millisecond precision, `…sssZ`) does not write, and
 * `DateTime`'s conversion through `Date` measured about ten times slower than the day-number
 * arithmetic here, on a path every progress record takes.
 */
import * as Clock from "effect/Clock";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";

/** Microseconds since 1970-01-01T00:00:00Z. */
export type Micros = number;

/** Why a timestamp could not be parsed. */
export type IsoTimeErrorReason = "Malformed" | "OutOfRange";

/** A text that is not an ISO-8601 timestamp Kopf would accept. */
export class IsoTimeError extends Data.TaggedError("IsoTimeError")<{
  readonly reason: IsoTimeErrorReason;
  readonly message: string;
  readonly text: string;
}> {}

const MICROS_PER_DAY = 86_400_000_000;

// Days since the epoch of a proleptic Gregorian date, and back (H. Hinnant's algorithms; the same
// dates as Effect's `DateTime` in UTC, see the tests).
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
};

/**
 * The proleptic Gregorian date `[year, month, day]` of a day number (days since 1970-01-01).
 *
 * @example
 * ```ts
 * IsoTime.civilFromDays(0) // [1970, 1, 1]
 * ```
 */
export const civilFromDays = (days: number): readonly [number, number, number] => {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
};

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

const pad = (n: number, width: number): string => {
  const text = String(n);
  return text.length >= width ? text : "0".repeat(width - text.length) + text;
};

/**
 * The timestamp as Kopf writes it: UTC, always six fractional digits, `+00:00`. Fractions of a
 * microsecond are rounded. Non-finite numbers are rendered as `String(micros)`.
 *
 * @example
 * format(1609459199123456) // "2020-12-31T23:59:59.123456+00:00"
 */
export const format = (micros: Micros): string => {
  if (!Number.isFinite(micros)) return String(micros);
  const whole = Math.round(micros);
  const days = Math.floor(whole / MICROS_PER_DAY);
  let rest = whole - days * MICROS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  const fraction = rest % 1_000_000;
  rest = (rest - fraction) / 1_000_000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(fraction, 6)}+00:00`;
};

/**
 * The timestamp as Kubernetes writes a `MicroTime` (e.g. a Lease's `renewTime`): UTC, always six
 * fractional digits, `Z`.
 *
 * @example
 * formatMicroTime(1609459199123456) // "2020-12-31T23:59:59.123456Z"
 */
export const formatMicroTime = (micros: Micros): string => format(micros).replace(/\+00:00$/, "Z");

// Date (extended or basic), then optionally a T/space, hours, minutes, seconds with a fraction
// of any length, and a zone: Z, ±HH, ±HHMM or ±HH:MM. No zone means UTC.
const ISO =
  /^(\d{4})(?:-(\d{1,2})-(\d{1,2})|(\d{2})(\d{2}))(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO-8601 timestamp into epoch microseconds: `Z`, `±HH:MM` (also `±HHMM`, `±HH`)
 * and naive forms (taken as UTC); fractions of any length (digits beyond microseconds are
 * truncated, as Kopf's parser does); a date alone means midnight. Kopf-written strings
 * round-trip exactly through `format`.
 *
 * @example
 * parse("2020-12-31T23:59:59.123456+00:00") // Result.succeed(1609459199123456)
 * parse("2020-12-31T23:59:59Z")             // Result.succeed(1609459199000000)
 */
export const parse = (text: string): Result.Result<Micros, IsoTimeError> => {
  const m = typeof text === "string" ? ISO.exec(text) : null;
  if (m === null) {
    return Result.fail(
      new IsoTimeError({
        reason: "Malformed",
        text: String(text),
        message: `Not an ISO-8601 timestamp: ${JSON.stringify(text)}.`,
      }),
    );
  }
  const num = (s: string | undefined): number => (s === undefined ? 0 : Number(s));
  const year = num(m[1]);
  const month = num(m[2] ?? m[4]);
  const day = num(m[3] ?? m[5]);
  const [hour, minute, second] = [num(m[6]), num(m[7]), num(m[8])];
  const fraction = num((m[9] ?? "").slice(0, 6).padEnd(6, "0"));
  const zone = m[10];
  const zoneSign = zone?.startsWith("-") ? -1 : 1;
  const zoneDigits = zone === undefined || zone === "Z" ? "" : zone.slice(1).replace(":", "");
  const [zoneHour, zoneMinute] = [
    num(zoneDigits.slice(0, 2) || undefined),
    num(zoneDigits.slice(2, 4) || undefined),
  ];
  const bad =
    month < 1 || month > 12
      ? "month"
      : day < 1 || day > daysInMonth(year, month)
        ? "day"
        : hour > 23
          ? "hour"
          : minute > 59
            ? "minute"
            : second > 59
              ? "second"
              : zoneHour > 23 || zoneMinute > 59
                ? "UTC offset"
                : undefined;
  if (bad !== undefined) {
    return Result.fail(
      new IsoTimeError({
        reason: "OutOfRange",
        text,
        message: `The ${bad} is out of range in the timestamp ${JSON.stringify(text)}.`,
      }),
    );
  }
  const offsetSeconds = zoneSign * (zoneHour * 3600 + zoneMinute * 60);
  const seconds =
    daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return Result.succeed(seconds * 1_000_000 + fraction);
};

/**
 * Epoch microseconds from epoch milliseconds (e.g. `Clock.currentTimeMillis`).
 *
 * @example
 * fromMillis(1_000) // 1_000_000
 */
export const fromMillis = (millis: number): Micros => Math.round(millis * 1000);

/**
 * Epoch milliseconds from epoch microseconds, rounded down.
 *
 * @example
 * toMillis(1_999) // 1
 */
export const toMillis = (micros: Micros): number => Math.floor(micros / 1000);

/**
 * The current time in epoch microseconds, from Effect's `Clock` (nanosecond precision where
 * the clock has it; `TestClock` in tests).
 *
 * @example
 * const started = yield* IsoTime.now
 */
export const now: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, (nanos) =>
  Number(nanos / 1000n),
);

/**
 * Kopf's timestamp format for progress records, as epoch microseconds: formatting always with
 * 6 fractional digits and `+00:00`; parsing of `Z`, `±HH:MM` and naive (taken as UTC) forms.
 * Interim copy until @kopf/structs publishes `IsoTime` with the same contract.
 */
import { Result } from "effect";

const MICROS_PER_MILLI = 1000;
const MICROS_PER_SECOND = 1_000_000;
const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;

const pad = (value: number, width: number): string => String(value).padStart(width, "0");

/** `2020-12-31T23:59:59.123456+00:00` for the given epoch microseconds. */
export const format = (micros: number): string => {
  const whole = Math.floor(micros);
  const millis = Math.floor(whole / MICROS_PER_MILLI);
  const fraction = whole - Math.floor(whole / MICROS_PER_SECOND) * MICROS_PER_SECOND;
  const date = new Date(millis);
  const year = date.getUTCFullYear();
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}` +
    `.${pad(fraction, 6)}+00:00`
  );
};

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Epoch microseconds of an ISO-8601 timestamp, or the reason it is not one. */
export const parse = (text: string): Result.Result<number, string> => {
  const match = PATTERN.exec(text);
  if (match === null) return Result.fail(`Not an ISO-8601 timestamp: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map((part) =>
    Number(part ?? "0"),
  ) as [number, number, number, number, number, number];
  const millis = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(millis);
  if (
    month < 1 ||
    month > 12 ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    check.getUTCDate() !== day ||
    check.getUTCMonth() !== month - 1
  ) {
    return Result.fail(`Not a valid date or time: ${JSON.stringify(text)}`);
  }
  const fraction = Number((frac ?? "").slice(0, 6).padEnd(6, "0"));
  let offset = 0;
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || "0");
    if (hours > 23 || minutes > 59) return Result.fail(`Not a valid UTC offset: ${JSON.stringify(text)}`);
    offset = sign * (hours * 60 + minutes) * MICROS_PER_MINUTE;
  }
  return Result.succeed(millis * MICROS_PER_MILLI + fraction - offset);
};

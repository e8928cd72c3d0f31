/**
 * The hash space objects are sharded over, as Kubernetes' sharded list and watch defines it: a
 * 64-bit FNV-1a hash of a field's value (the object's `metadata.uid`: the bytes of its UTF-8
 * text), split into ranges `[start, end)` with `end` up to 2^64. A set of ranges is written as
 * the API server's `shardSelector` expression:
 * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(…)`,
 * bounds in exactly 16 lowercase hex digits (`0x10000000000000000` for 2^64), as kube-apiserver
 * v1.36 requires them.
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";

/** A range of hashes, start inclusive, end exclusive (both within `[0, 2^64]`). */
export interface ShardRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** The size of the hash space: 2^64. */
export const SPACE = 1n << 64n;

/** The whole space as one range. */
export const WHOLE: ShardRange = { start: 0n, end: SPACE };

/** The field path the selectors of this module hash by default. */
export const UID = "object.metadata.uid";

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = SPACE - 1n;

/** The UTF-8 bytes of a text (lone surrogates as U+FFFD, as Go's and the web's encoders do). */
const utf8 = (text: string): Array<number> => {
  const bytes: Array<number> = [];
  for (const char of text) {
    let code = char.codePointAt(0) ?? 0xfffd;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 63),
        0x80 | ((code >> 6) & 63),
        0x80 | (code & 63),
      );
  }
  return bytes;
};

/**
 * The 64-bit FNV-1a hash of a text's UTF-8 bytes: for each byte, xor then multiply by the FNV
 * prime modulo 2^64.
 *
 * @example
 * fnv1a64("") // 0xcbf29ce484222325n
 * fnv1a64("a") // 0xaf63dc4c8601ec8cn
 */
export const fnv1a64 = (text: string): bigint => {
  let hash = OFFSET;
  for (const byte of utf8(text)) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash;
};

/**
 * Whether a hash falls into one of the ranges.
 *
 * @example
 * contains([{ start: 0n, end: 1n << 63n }], 5n) // true
 */
export const contains = (ranges: ReadonlyArray<ShardRange>, hash: bigint): boolean =>
  ranges.some((range) => range.start <= hash && hash < range.end);

/**
 * Sorts ranges, drops empty ones and merges overlapping or adjacent ones.
 *
 * @example
 * normalize([{ start: 4n, end: 8n }, { start: 0n, end: 4n }]) // [{ start: 0n, end: 8n }]
 */
export const normalize = (ranges: ReadonlyArray<ShardRange>): ReadonlyArray<ShardRange> => {
  const sorted = ranges
    .filter((r) => r.start < r.end)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: Array<ShardRange> = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last === undefined || range.start > last.end) merged.push(range);
    else if (range.end > last.end) merged[merged.length - 1] = { start: last.start, end: range.end };
  }
  return merged;
};

/**
 * The parts of `ranges` outside `minus`.
 *
 * @example
 * subtract([{ start: 0n, end: 10n }], [{ start: 2n, end: 4n }]) // [{ 0n–2n }, { 4n–10n }]
 */
export const subtract = (
  ranges: ReadonlyArray<ShardRange>,
  minus: ReadonlyArray<ShardRange>,
): ReadonlyArray<ShardRange> => {
  let rest = normalize(ranges);
  for (const cut of normalize(minus)) {
    rest = rest.flatMap((range) => {
      if (cut.end <= range.start || range.end <= cut.start) return [range];
      return [
        ...(range.start < cut.start ? [{ start: range.start, end: cut.start }] : []),
        ...(cut.end < range.end ? [{ start: cut.end, end: range.end }] : []),
      ];
    });
  }
  return rest;
};

/**
 * The parts of `a` also in `b`.
 *
 * @example
 * intersect([{ start: 0n, end: 10n }], [{ start: 5n, end: 20n }]) // [{ start: 5n, end: 10n }]
 */
export const intersect = (
  a: ReadonlyArray<ShardRange>,
  b: ReadonlyArray<ShardRange>,
): ReadonlyArray<ShardRange> => subtract(a, subtract(a, b));

/** A bound as the API server requires it: `0x` and 16 lowercase hex digits, or `0x10000000000000000` for 2^64. */
const hex = (value: bigint): string => `0x${value.toString(16).padStart(16, "0")}`;

/**
 * The `shardSelector` expression selecting the ranges by the hash of `field` (`""` for none).
 *
 * @example
 * selector([{ start: 0n, end: 1n << 63n }])
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 */
export const selector = (ranges: ReadonlyArray<ShardRange>, field: string = UID): string =>
  normalize(ranges)
    .map((range) => `shardRange(${field}, '${hex(range.start)}', '${hex(range.end)}')`)
    .join(" || ");

/** Why a selector expression was rejected. */
export class ShardSelectorError extends Data.TaggedError("ShardSelectorError")<{
  readonly reason: "Malformed" | "OutOfRange" | "Empty" | "MixedFields";
  readonly message: string;
}> {}

const TERM =
  /^shardRange\(\s*(object(?:\.[A-Za-z]+)+)\s*,\s*'0x([0-9a-f]{16}|10000000000000000)'\s*,\s*'0x([0-9a-f]{16}|10000000000000000)'\s*\)$/;

/**
 * Parses a `shardSelector` expression (terms joined by `||`) into its field and ranges: bounds
 * in 16 lowercase hex digits (or `0x10000000000000000`), start below end, one field for all.
 *
 * @example
 * parse("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')")
 * // Result.succeed({ field: "object.metadata.uid", ranges: [{ start: 0n, end: 2n ** 64n }] })
 */
export const parse = (
  text: string,
): Result.Result<
  { readonly field: string; readonly ranges: ReadonlyArray<ShardRange> },
  ShardSelectorError
> => {
  const terms = text.split("||").map((term) => term.trim());
  let field: string | undefined;
  const ranges: Array<ShardRange> = [];
  for (const term of terms) {
    const m = TERM.exec(term);
    if (m === null) {
      return Result.fail(
        new ShardSelectorError({
          reason: "Malformed",
          message: `not a shardRange(field, '0x…', '0x…') term with 16-digit lowercase bounds: ${JSON.stringify(term)}`,
        }),
      );
    }
    const [, path = "", startText = "", endText = ""] = m;
    if (field !== undefined && field !== path) {
      return Result.fail(
        new ShardSelectorError({
          reason: "MixedFields",
          message: `the terms hash different fields: ${field}, ${path}`,
        }),
      );
    }
    field = path;
    const start = BigInt(`0x${startText}`);
    const end = BigInt(`0x${endText}`);
    if (start >= end) {
      return Result.fail(
        new ShardSelectorError({
          reason: "OutOfRange",
          message: `the range ['0x${startText}', '0x${endText}') is empty (start must be less than end)`,
        }),
      );
    }
    ranges.push({ start, end });
  }
  if (field === undefined)
    return Result.fail(new ShardSelectorError({ reason: "Empty", message: "no shardRange term" }));
  return Result.succeed({ field, ranges });
};

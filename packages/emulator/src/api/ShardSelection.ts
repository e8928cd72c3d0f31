/**
 * Sharded list and watch as kube-apiserver v1.36 serves them with its `ShardedListAndWatch`
 * feature gate on: the `shardSelector` query parameter (`shardRange(object.metadata.uid,
 * '0x…', '0x…') || …`, also `object.metadata.namespace`) keeps only objects whose field's 64-bit
 * FNV-1a hash is in one of the ranges; lists echo the applied selector in
 * `metadata.shardInfo.selector`. A selector the server cannot parse fails the request with a
 * 500 whose message starts `invalid shard selector: ` (the apiserver's registry returns a plain
 * error there). With the gate off the parameter is ignored, as older servers do.
 */
import { ShardRange } from "@kopf/structs";
import { Result } from "effect";
import { type JsonObject, metaOf } from "./internal/Json.ts";
import * as Status from "./Status.ts";

/** A parsed selector: the hashed field, the ranges, and the text the server echoes. */
export interface ShardSelection {
  readonly field: "object.metadata.uid" | "object.metadata.namespace";
  readonly ranges: ReadonlyArray<ShardRange.ShardRange>;
  /** The canonical form: `shardRange(field, 'start', 'end')` terms joined by ` || `. */
  readonly echo: string;
}

const CALL = /^shardRange\s*\(([^,()]*),([^,()]*),([^,()]*)\)$/;
const FIELDS = ["object.metadata.uid", "object.metadata.namespace"] as const;

/** A hex bound as the server checks it: quoted, `0x`, 16 lowercase digits or exactly 2^64. */
const bound = (raw: string, name: string): Result.Result<string, string> => {
  const text = raw.trim();
  const quoted = /^'([^']*)'$/.exec(text) ?? /^"([^"]*)"$/.exec(text);
  if (quoted === null)
    return Result.fail(`${name} must be a string literal (e.g. '0xff'), got expression kind`);
  const s = quoted[1] ?? "";
  if (!s.startsWith("0x")) return Result.fail(`${name} must have '0x' prefix, got ${JSON.stringify(s)}`);
  const hex = s.slice(2);
  if (hex === "") return Result.fail(`${name}: hex value is required after '0x'`);
  if (hex.length > 17)
    return Result.fail(`${name}: hex value too long (max 17 digits), got ${JSON.stringify(s)}`);
  for (const c of hex)
    if (!/[0-9a-f]/.test(c))
      return Result.fail(`${name}: invalid hex character ${JSON.stringify(c)} in ${JSON.stringify(s)}`);
  if (hex.length === 17 && s !== "0x10000000000000000")
    return Result.fail(
      `${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${JSON.stringify(s)}`,
    );
  if (hex.length !== 16 && hex.length !== 17)
    return Result.fail(
      `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(`0x${hex.padStart(16, "0")}`)}?)`,
    );
  return Result.succeed(s);
};

/**
 * Parses a `shardSelector` as the server does (terms joined by `||`); the failure is the detail
 * after `invalid shard selector: `.
 *
 * @example
 * parse("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')")
 */
export const parse = (expression: string): Result.Result<ShardSelection, string> => {
  const text = expression.trim();
  if (text === "")
    return Result.fail("empty shard selector is not allowed; omit the parameter for unfiltered lists");
  const terms: Array<{ field: string; start: string; end: string }> = [];
  for (const term of text.split("||").map((t) => t.trim())) {
    const call = CALL.exec(term);
    if (call === null) {
      const fn = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(term)?.[1];
      return Result.fail(
        fn !== undefined && fn !== "shardRange"
          ? `unsupported function ${JSON.stringify(fn)}; only shardRange() and || are allowed`
          : `CEL parse error: cannot parse ${JSON.stringify(term)}`,
      );
    }
    const field = (call[1] ?? "").replaceAll(/\s+/g, "");
    if (!(FIELDS as ReadonlyArray<string>).includes(field))
      return Result.fail(
        `shardRange() first argument: unsupported field path ${JSON.stringify(field)}; supported: object.metadata.uid, object.metadata.namespace`,
      );
    const start = bound(call[2] ?? "", "hexStart");
    if (Result.isFailure(start)) return Result.fail(start.failure);
    const end = bound(call[3] ?? "", "hexEnd");
    if (Result.isFailure(end)) return Result.fail(end.failure);
    if (!(BigInt(start.success) < BigInt(end.success)))
      return Result.fail(`shard range start ${start.success} must be less than end ${end.success}`);
    terms.push({ field, start: start.success, end: end.success });
  }
  const first = terms[0] as { field: string };
  for (const term of terms.slice(1))
    if (term.field !== first.field)
      return Result.fail(
        `all shard ranges must use the same field, got ${JSON.stringify(first.field)} and ${JSON.stringify(term.field)}`,
      );
  return Result.succeed({
    field: first.field as ShardSelection["field"],
    ranges: terms.map((t) => ({ start: BigInt(t.start), end: BigInt(t.end) })),
    echo: terms.map((t) => `shardRange(${t.field}, '${t.start}', '${t.end}')`).join(" || "),
  });
};

/**
 * The selection of a request: `undefined` without the parameter or with the gate off.
 *
 * @example
 * fromQuery(new URLSearchParams("shardSelector=…"), true)
 */
export const fromQuery = (
  query: URLSearchParams,
  gate: boolean,
): Result.Result<ShardSelection | undefined, Status.ApiError> => {
  const raw = query.get("shardSelector") ?? "";
  if (!gate || raw === "") return Result.succeed(undefined);
  const parsed = parse(raw);
  return Result.isFailure(parsed)
    ? Result.fail(Status.make(500, undefined, `invalid shard selector: ${parsed.failure}`))
    : Result.succeed(parsed.success);
};

/** Whether an object is in the selection. */
export const matches = (selection: ShardSelection, obj: JsonObject): boolean => {
  const meta = metaOf(obj);
  const value = selection.field === "object.metadata.uid" ? meta.uid : meta.namespace;
  return ShardRange.contains(selection.ranges, ShardRange.fnv1a64(typeof value === "string" ? value : ""));
};

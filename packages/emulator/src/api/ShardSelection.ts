/**
 * Sharded list and watch as kube-apiserver v1.36 serves them with its `ShardedListAndWatch`
 * feature gate on: the `shardSelector` query parameter (`shardRange(object.metadata.uid,
 * '0x…', '0x…') || …`, also `object.metadata.namespace`) keeps only objects whose field's 64-bit
 * FNV-1a hash (of the value's UTF-8 bytes) is in one of the ranges, start inclusive, end
 * exclusive; lists of built-in types echo the applied selector in `metadata.shardInfo.selector`
 * (custom resource lists and Tables do not). Watches filter the same way and still send
 * bookmarks. A selector the server cannot parse fails the request, list or watch, with a 500
 * whose message starts `invalid shard selector: ` (the apiserver's registry returns a plain
 * error there). With the gate off the parameter is ignored, as older servers do. The names are
 * k8s.io/apiserver@v0.36.3's pkg/features/kube_features.go (the gate) and k8s.io/apimachinery@v0.36.3's
 * pkg/apis/meta/v1/types.go (`shardSelector` in ListOptions, `shardInfo.selector` in ListMeta);
 * the wording is k8s.io/apiserver@v0.36.3's pkg/sharding/parser.go and apimachinery's pkg/sharding.
 */
import { ShardRange } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Cel from "./internal/Cel.ts";
import { type JsonObject, metaOf } from "./internal/Json.ts";
import * as Status from "./Status.ts";

/** A parsed selector: the hashed field, the ranges, and the text the server echoes. */
export interface ShardSelection {
  readonly field: "object.metadata.uid" | "object.metadata.namespace";
  readonly ranges: ReadonlyArray<ShardRange.ShardRange>;
  /** The canonical form: `shardRange(field, 'start', 'end')` terms joined by ` || `. */
  readonly echo: string;
}

const FIELDS = ["object.metadata.uid", "object.metadata.namespace"] as const;
type Term = { readonly field: string; readonly start: string; readonly end: string };

/** A hex bound as the server checks it: a string literal, `0x`, 16 lowercase digits or exactly 2^64. */
const bound = (e: Cel.Expr, name: string): Result.Result<string, string> => {
  if (e.kind !== Cel.Kind.Literal)
    return Result.fail(`${name} must be a string literal (e.g. '0xff'), got expression kind ${e.kind}`);
  if (typeof e.value !== "string") return Result.fail(`${name} must be a string literal, got ${e.goType}`);
  const s = e.value;
  if (!s.startsWith("0x")) return Result.fail(`${name} must have '0x' prefix, got ${JSON.stringify(s)}`);
  const hex = s.slice(2);
  if (hex === "") return Result.fail(`${name}: hex value is required after '0x'`);
  if (hex.length > 17)
    return Result.fail(`${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`);
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

/** A select chain (`object.metadata.uid`) as a dotted path. */
const fieldPath = (e: Cel.Expr): Result.Result<string, string> => {
  if (e.kind === Cel.Kind.Ident) return Result.succeed(e.name);
  if (e.kind === Cel.Kind.Select)
    return Result.map(fieldPath(e.operand), (operand) => `${operand}.${e.field}`);
  return Result.fail(`expected field path (e.g. object.metadata.uid), got expression kind ${e.kind}`);
};

const shardRange = (args: ReadonlyArray<Cel.Expr>): Result.Result<Term, string> => {
  const [first, second, third] = args;
  if (args.length !== 3 || first === undefined || second === undefined || third === undefined)
    return Result.fail(`shardRange() requires exactly 3 arguments, got ${args.length}`);
  const field = fieldPath(first);
  if (Result.isFailure(field)) return Result.fail(`shardRange() first argument: ${field.failure}`);
  if (!(FIELDS as ReadonlyArray<string>).includes(field.success))
    return Result.fail(
      `unsupported field path ${JSON.stringify(field.success)}; supported: object.metadata.uid, object.metadata.namespace`,
    );
  const start = bound(second, "hexStart");
  if (Result.isFailure(start)) return Result.fail(start.failure);
  const end = bound(third, "hexEnd");
  if (Result.isFailure(end)) return Result.fail(end.failure);
  if (!(BigInt(start.success) < BigInt(end.success)))
    return Result.fail(`shard range start ${start.success} must be less than end ${end.success}`);
  return Result.succeed({ field: field.success, start: start.success, end: end.success });
};

/** The terms of `||` chains of `shardRange()` calls, left to right; the first problem fails. */
const walk = (e: Cel.Expr): Result.Result<ReadonlyArray<Term>, string> => {
  if (e.kind !== Cel.Kind.Call)
    return Result.fail(`unexpected expression kind ${e.kind}; expected shardRange() call or || operator`);
  if (e.fn === "_||_") {
    const [left, right] = e.args;
    if (left === undefined || right === undefined)
      return Result.fail("|| operator requires exactly 2 arguments");
    return Result.flatMap(walk(left), (l) => Result.map(walk(right), (r) => [...l, ...r]));
  }
  if (e.fn === "shardRange") return Result.map(shardRange(e.args), (term) => [term]);
  return Result.fail(`unsupported function ${JSON.stringify(e.fn)}; only shardRange() and || are allowed`);
};

/**
 * Parses a `shardSelector` as the server does (the CEL expression's tree walked for
 * `shardRange()` calls joined by `||`); the failure is the detail after `invalid shard selector: `.
 *
 * @example
 * parse("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')")
 */
export const parse = (expression: string): Result.Result<ShardSelection, string> => {
  const text = expression.trim();
  if (text === "")
    return Result.fail("empty shard selector is not allowed; omit the parameter for unfiltered lists");
  const tree = Cel.parse(text);
  if (Result.isFailure(tree)) return Result.fail(`CEL parse error: ${tree.failure}`);
  const walked = walk(tree.success);
  if (Result.isFailure(walked)) return Result.fail(walked.failure);
  const terms = walked.success;
  const first = terms[0] as Term;
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

/**
 * Label and field selectors as list and watch requests carry them (`labelSelector`,
 * `fieldSelector`): parsing with the apiserver's operators and matching against objects.
 */
import { Result } from "effect";
import { getPath, type JsonObject } from "./internal/Json.ts";

export type LabelRequirement =
  | { readonly op: "exists" | "!exists"; readonly key: string }
  | { readonly op: "=" | "!="; readonly key: string; readonly value: string }
  | { readonly op: "in" | "notin"; readonly key: string; readonly values: ReadonlyArray<string> }
  | { readonly op: "gt" | "lt"; readonly key: string; readonly value: number };

export type LabelSelector = ReadonlyArray<LabelRequirement>;

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const checkKey = (key: string): string | undefined =>
  key === ""
    ? "found '', expected: identifier"
    : key.length > 316 || !KEY.test(key) || (key.split("/").at(-1) ?? "").length > 63
      ? `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`
      : undefined;

const checkValue = (value: string): string | undefined =>
  value.length > 63 || !VALUE.test(value)
    ? `invalid label value: "${value}": at key: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`
    : undefined;

/** Splits on commas that are not inside parentheses. */
const splitTop = (text: string): Array<string> => {
  const parts: Array<string> = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
};

const parseRequirement = (raw: string): Result.Result<LabelRequirement, string> => {
  const part = raw.trim();
  if (part === "") return Result.fail("found '', expected: !, identifier, or 'end of string'");
  if (part.startsWith("!")) {
    const key = part.slice(1).trim();
    const bad = checkKey(key);
    return bad === undefined ? Result.succeed({ op: "!exists", key }) : Result.fail(bad);
  }
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (set !== null) {
    const key = set[1] as string;
    const op = set[2] as "in" | "notin";
    const values = (set[3] as string).split(",").map((v) => v.trim());
    const bad = checkKey(key) ?? values.map(checkValue).find((m) => m !== undefined);
    if (bad !== undefined) return Result.fail(bad);
    if (op === "in" && values.length === 1 && values[0] === "")
      return Result.fail("for 'in', 'notin' operators, values set can't be empty");
    return Result.succeed({ op, key, values });
  }
  const cmp = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(.*)$/.exec(part);
  if (cmp !== null) {
    const key = cmp[1] as string;
    const op = cmp[2] as string;
    const value = (cmp[3] as string).trim();
    const badKey = checkKey(key);
    if (badKey !== undefined) return Result.fail(badKey);
    if (op === "<" || op === ">") {
      const n = Number(value);
      if (value === "" || !Number.isInteger(n))
        return Result.fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      return Result.succeed({ op: op === ">" ? "gt" : "lt", key, value: n });
    }
    const badValue = checkValue(value);
    if (badValue !== undefined) return Result.fail(badValue);
    return Result.succeed({ op: op === "!=" ? "!=" : "=", key, value });
  }
  const bad = checkKey(part);
  return bad === undefined ? Result.succeed({ op: "exists", key: part }) : Result.fail(bad);
};

/**
 * Parses a label selector string; an error message names the broken requirement.
 *
 * @example
 * parseLabelSelector("app=web,tier notin (db)") // Result.succeed([{op:"=",...},{op:"notin",...}])
 */
export const parseLabelSelector = (text: string): Result.Result<LabelSelector, string> => {
  if (text.trim() === "") return Result.succeed([]);
  const out: Array<LabelRequirement> = [];
  for (const raw of splitTop(text)) {
    const r = parseRequirement(raw);
    if (Result.isFailure(r)) return Result.fail(`unable to parse requirement: ${r.failure}`);
    out.push(r.success);
  }
  return Result.succeed(out);
};

export const matchesLabels = (
  selector: LabelSelector,
  labels: Readonly<Record<string, unknown>>,
): boolean => {
  for (const req of selector) {
    const has = Object.hasOwn(labels, req.key);
    const value = has ? String(labels[req.key]) : undefined;
    switch (req.op) {
      case "exists":
        if (!has) return false;
        break;
      case "!exists":
        if (has) return false;
        break;
      case "=":
        if (value !== req.value) return false;
        break;
      case "!=":
        if (value === req.value) return false;
        break;
      case "in":
        if (value === undefined || !req.values.includes(value)) return false;
        break;
      case "notin":
        if (value !== undefined && req.values.includes(value)) return false;
        break;
      case "gt":
      case "lt": {
        const n = value === undefined ? Number.NaN : Number(value);
        if (!Number.isInteger(n) || (req.op === "gt" ? !(n > req.value) : !(n < req.value))) return false;
      }
    }
  }
  return true;
};

export interface FieldRequirement {
  readonly field: string;
  readonly op: "=" | "!=";
  readonly value: string;
}

export type FieldSelector = ReadonlyArray<FieldRequirement>;

const unescapeValue = (s: string): string => s.replace(/\\(.)/g, "$1");

/** Splits on an unescaped separator. */
const splitUnescaped = (text: string, sep: string): Array<string> => {
  const out: Array<string> = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) {
      cur += c + (text[i + 1] as string);
      i++;
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
};

/** Parses `metadata.name=x,status.phase!=Running` (values may escape `\,` `\=` `\\`). */
export const parseFieldSelector = (text: string): Result.Result<FieldSelector, string> => {
  if (text.trim() === "") return Result.succeed([]);
  const out: Array<FieldRequirement> = [];
  for (const part of splitUnescaped(text, ",")) {
    const m = /^([^=!\\]*?)\s*(==|!=|=)(.*)$/.exec(part.trim());
    if (m === null) return Result.fail(`invalid selector: '${text}'; can't understand '${part}'`);
    out.push({
      field: (m[1] as string).trim(),
      op: m[2] === "!=" ? "!=" : "=",
      value: unescapeValue(m[3] as string),
    });
  }
  return Result.succeed(out);
};

/** The string form of a field for matching (`true`/`false` for booleans, as field sets render them). */
export const fieldValue = (obj: JsonObject, field: string): string => {
  const v = getPath(obj, (field === "source" ? "source.component" : field).split("."));
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v) && field === "status.podIPs")
    return v.map((ip) => String((ip as { ip?: unknown }).ip ?? "")).join(",");
  return JSON.stringify(v);
};

export const matchesFields = (selector: FieldSelector, obj: JsonObject): boolean => {
  for (const req of selector) {
    const actual = fieldValue(obj, req.field);
    if (req.op === "=" ? actual !== req.value : actual === req.value) return false;
  }
  return true;
};

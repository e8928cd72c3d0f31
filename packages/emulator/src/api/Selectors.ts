/**
 * Label and field selectors as list and watch requests carry them (`labelSelector`,
 * `fieldSelector`): parsing with the apiserver's operators and matching against objects.
 */
import * as Result from "effect/Result";
import { getPath, type JsonObject } from "./internal/Json.ts";
import * as LabelSelectorSyntax from "./LabelSelectorSyntax.ts";

export type LabelRequirement =
  | { readonly op: "exists" | "!exists"; readonly key: string }
  | { readonly op: "=" | "!="; readonly key: string; readonly value: string }
  | { readonly op: "in" | "notin"; readonly key: string; readonly values: ReadonlyArray<string> }
  | { readonly op: "gt" | "lt"; readonly key: string; readonly value: number };

export type LabelSelector = ReadonlyArray<LabelRequirement>;

/**
 * Parses a label selector string with the apiserver's grammar; an error message names the problem.
 *
 * @example
 * parseLabelSelector("app=web,tier notin (db)") // Result.succeed([{op:"=",...},{op:"notin",...}])
 */
export const parseLabelSelector = (text: string): Result.Result<LabelSelector, string> =>
  LabelSelectorSyntax.parse(text);

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

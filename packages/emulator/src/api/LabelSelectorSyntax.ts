/**
 * The label selector syntax as k8s.io/apimachinery's lexer and parser read it, with their error
 * messages (`found 'b', expected: in, notin, =, ==, !=, gt, lt`), and the requirement validation
 * of label keys and values.
 */
import * as Result from "effect/Result";
import * as FieldError from "./FieldError.ts";
import type { LabelRequirement, LabelSelector } from "./Selectors.ts";
import { qualifiedNameProblems } from "./Validation.ts";

type Token =
  | "ident"
  | "!"
  | "!="
  | "("
  | ")"
  | ","
  | "="
  | "=="
  | ">"
  | "<"
  | "in"
  | "notin"
  | "eos"
  | "error";

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const SYMBOLS: ReadonlyArray<string> = ["!", "!=", "(", ")", ",", "=", "==", ">", "<"];
const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\r" || c === "\n";

interface Lexed {
  readonly tok: Token;
  readonly lit: string;
}

const lex = (input: string): Array<Lexed> => {
  const out: Array<Lexed> = [];
  let i = 0;
  for (;;) {
    while (i < input.length && isSpace(input[i] as string)) i++;
    if (i >= input.length) {
      out.push({ tok: "eos", lit: "" });
      return out;
    }
    const c = input[i] as string;
    if (SPECIAL.has(c)) {
      let buffer = "";
      let last: Lexed | undefined;
      while (i < input.length && SPECIAL.has(input[i] as string)) {
        buffer += input[i];
        if (SYMBOLS.includes(buffer)) {
          last = { tok: buffer as Token, lit: buffer };
          i++;
        } else if (last !== undefined) break;
        else i++;
      }
      if (last === undefined) {
        out.push({ tok: "error", lit: `error expected: keyword found '${buffer}'` });
        return out;
      }
      out.push(last);
      continue;
    }
    let j = i;
    while (j < input.length && !isSpace(input[j] as string) && !SPECIAL.has(input[j] as string)) j++;
    const word = input.slice(i, j);
    i = j;
    out.push({ tok: word === "in" ? "in" : word === "notin" ? "notin" : "ident", lit: word });
  }
};

/** Parses a selector with the apiserver's grammar and messages. */
export const parse = (input: string): Result.Result<LabelSelector, string> => {
  const tokens = lex(input);
  let pos = 0;
  /** In value context the keywords `in` and `notin` are plain identifiers. */
  const peek = (values: boolean): Lexed => {
    const t = tokens[pos] ?? { tok: "eos", lit: "" };
    return values && (t.tok === "in" || t.tok === "notin") ? { tok: "ident", lit: t.lit } : t;
  };
  const next = (values: boolean): Lexed => {
    const t = peek(values);
    if (pos < tokens.length - 1) pos++;
    return t;
  };
  const fail = (message: string) => Result.fail(message);

  const identifiers = (): Result.Result<Array<string>, string> => {
    const set: Array<string> = [];
    for (;;) {
      const t = next(true);
      if (t.tok === "ident") {
        set.push(t.lit);
        const after = peek(true);
        if (after.tok === ",") continue;
        if (after.tok === ")") return Result.succeed(set);
        return fail(`found '${after.lit}', expected: ',' or ')'`);
      }
      if (t.tok === ",") {
        if (set.length === 0) set.push("");
        const after = peek(true);
        if (after.tok === ")") {
          set.push("");
          return Result.succeed(set);
        }
        if (after.tok === ",") {
          next(true);
          set.push("");
        }
        continue;
      }
      return fail(`found '${t.lit}', expected: ',', or identifier`);
    }
  };

  const requirement = (): Result.Result<LabelRequirement, string> => {
    let t = next(true);
    let negated = false;
    if (t.tok === "!") {
      negated = true;
      t = next(true);
    }
    if (t.tok !== "ident") return fail(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyProblems = qualifiedNameProblems(key);
    if (keyProblems.length > 0)
      return fail(FieldError.render(FieldError.invalid("key", key, keyProblems.join("; "))));
    const after = peek(true);
    if (negated || after.tok === "eos" || after.tok === ",")
      return Result.succeed({ op: negated ? "!exists" : "exists", key });
    const op = next(false);
    let values: Array<string>;
    switch (op.tok) {
      case "in":
      case "notin": {
        const open = next(true);
        if (open.tok !== "(") return fail(`found '${open.lit}' expected: '('`);
        const first = peek(true);
        if (first.tok === "ident" || first.tok === ",") {
          const list = identifiers();
          if (Result.isFailure(list)) return Result.fail(list.failure);
          const close = next(true);
          if (close.tok !== ")") return fail(`found '${close.lit}', expected: ')'`);
          values = list.success;
        } else if (first.tok === ")") {
          next(true);
          values = [""];
        } else return fail(`found '${first.lit}', expected: ',', ')' or identifier`);
        break;
      }
      case "=":
      case "==":
      case "!=":
      case ">":
      case "<": {
        const v = peek(true);
        if (v.tok === "eos" || v.tok === ",") values = [""];
        else {
          const value = next(true);
          if (value.tok !== "ident") return fail(`found '${value.lit}', expected: identifier`);
          values = [value.lit];
        }
        break;
      }
      default:
        return fail(`found '${op.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const unique = [...new Set(values)].sort();
    const errors: Array<FieldError.FieldError> = [];
    if (op.tok === ">" || op.tok === "<")
      unique.forEach((v, i) => {
        if (!/^[-+]?[0-9]+$/.test(v))
          errors.push(
            FieldError.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
      });
    else
      unique.forEach((v, i) => {
        const problems: Array<string> = [];
        if (v.length > 63) problems.push("must be no more than 63 bytes");
        if (!/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v))
          problems.push(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
          );
        if (problems.length > 0)
          errors.push(FieldError.invalid(`values[${i}][${key}]`, v, problems.join("; ")));
      });
    if (errors.length > 0) {
      const rendered = errors.map(FieldError.render);
      return fail(rendered.length === 1 ? (rendered[0] as string) : `[${rendered.join(", ")}]`);
    }
    switch (op.tok) {
      case "in":
      case "notin":
        return Result.succeed({ op: op.tok, key, values: unique });
      case ">":
      case "<":
        return Result.succeed({ op: op.tok === ">" ? "gt" : "lt", key, value: Number(unique[0]) });
      default:
        return Result.succeed({ op: op.tok === "!=" ? "!=" : "=", key, value: unique[0] ?? "" });
    }
  };

  const out: Array<LabelRequirement> = [];
  for (;;) {
    const t = peek(true);
    if (t.tok === "eos") return Result.succeed(out);
    if (t.tok !== "ident" && t.tok !== "!")
      return fail(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
    const r = requirement();
    if (Result.isFailure(r)) return fail(`unable to parse requirement: ${r.failure}`);
    out.push(r.success);
    const sep = next(true);
    if (sep.tok === "eos") return Result.succeed(out);
    if (sep.tok !== ",") return fail(`found '${sep.lit}', expected: ',' or 'end of string'`);
    const after = peek(true);
    if (after.tok !== "ident" && after.tok !== "!")
      return fail(`found '${after.lit}', expected: identifier after ','`);
  }
};

/**
 * A parser of CEL expressions into the syntax tree kube-apiserver's shard selector parser walks
 * (github.com/google/cel-go/parser without macros): calls (operators are calls named `_||_`,
 * `_&&_`, `!_`, `-_`, `_[_]`, …; `a.f(x)` is a call of `f` on the target `a`), identifiers,
 * selections, literals, lists and maps, each with cel-go's `ast.ExprKind` number. Syntax errors
 * carry the wording of cel-go's most common complaints (`Syntax error: …`).
 */
import * as Result from "effect/Result";

/** cel-go's `ast.ExprKind` values, printed as numbers in the apiserver's messages. */
export const Kind = { Call: 1, Ident: 3, List: 4, Literal: 5, Map: 6, Select: 7 } as const;

/** A literal's value with the Go type name `%T` prints for it. */
export interface Literal {
  readonly kind: typeof Kind.Literal;
  readonly value: string | number | boolean | null | Uint8Array;
  readonly goType: "string" | "int64" | "uint64" | "float64" | "bool" | "structpb.NullValue" | "[]uint8";
}

/** A node of the syntax tree. */
export type Expr =
  | { readonly kind: typeof Kind.Call; readonly fn: string; readonly args: ReadonlyArray<Expr> }
  | { readonly kind: typeof Kind.Ident; readonly name: string }
  | { readonly kind: typeof Kind.Select; readonly operand: Expr; readonly field: string }
  | { readonly kind: typeof Kind.List | typeof Kind.Map }
  | Literal;

type Token = { readonly t: string; readonly text: string; readonly value?: Literal };

const EXPECTED =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const PUNCT = [
  "||",
  "&&",
  "==",
  "!=",
  "<=",
  ">=",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ".",
  "?",
  ":",
  "!",
  "-",
  "+",
  "*",
  "/",
  "%",
  "<",
  ">",
];
const ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
  v: "\v",
  a: "\x07",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "`": "`",
  "?": "?",
};

/** A string literal's escapes decoded, or the bad escape. */
const decodeEscapes = (body: string): Result.Result<string, string> => {
  let bad: string | undefined;
  const decoded = body.replace(
    /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g,
    (_m, e: string) => {
      if (/^[xuU]/.test(e)) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      if (/^[0-7]{3}$/.test(e)) return String.fromCodePoint(Number.parseInt(e, 8));
      const known = ESCAPES[e];
      if (known === undefined) bad ??= e;
      return known ?? "";
    },
  );
  return bad === undefined ? Result.succeed(decoded) : Result.fail(`token recognition error at: '\\${bad}'`);
};

const STRING =
  /^([rR]?[bB]?|[bB][rR])('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")/;
const NUMBER = /^(0x[0-9a-fA-F]+[uU]?|[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+[uU]?)/;

/** The tokens of an expression, ending with `eof`, or cel-go's lexer complaint. */
const tokenize = (text: string): Result.Result<Array<Token>, string> => {
  const tokens: Array<Token> = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      i += space[0].length;
      continue;
    }
    const str = STRING.exec(rest);
    if (str !== null) {
      const prefix = (str[1] ?? "").toLowerCase();
      const quoted = str[2] ?? "";
      const q = quoted.startsWith("'''") || quoted.startsWith('"""') ? 3 : 1;
      const body = quoted.slice(q, quoted.length - q);
      const decoded = prefix.includes("r") ? Result.succeed(body) : decodeEscapes(body);
      if (Result.isFailure(decoded)) return Result.fail(`Syntax error: ${decoded.failure}`);
      const value = decoded.success;
      tokens.push({
        t: "lit",
        text: str[0],
        value: prefix.includes("b")
          ? { kind: Kind.Literal, value: new TextEncoder().encode(value), goType: "[]uint8" }
          : { kind: Kind.Literal, value, goType: "string" },
      });
      i += str[0].length;
      continue;
    }
    const num = NUMBER.exec(rest);
    if (num !== null) {
      const n = num[0];
      const goType = /[uU]$/.test(n)
        ? "uint64"
        : /[.eE]/.test(n) && !n.startsWith("0x")
          ? "float64"
          : "int64";
      tokens.push({
        t: "lit",
        text: n,
        value: { kind: Kind.Literal, value: Number(n.replace(/[uU]$/, "")), goType },
      });
      i += n.length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (ident !== null) {
      const word = ident[0];
      const literal: Literal | undefined =
        word === "true" || word === "false"
          ? { kind: Kind.Literal, value: word === "true", goType: "bool" }
          : word === "null"
            ? { kind: Kind.Literal, value: null, goType: "structpb.NullValue" }
            : undefined;
      tokens.push(
        literal === undefined ? { t: "ident", text: word } : { t: "lit", text: word, value: literal },
      );
      i += word.length;
      continue;
    }
    const punct = PUNCT.find((p) => rest.startsWith(p));
    if (punct === undefined) return Result.fail(`Syntax error: token recognition error at: '${rest[0]}'`);
    tokens.push({ t: punct, text: punct });
    i += punct.length;
  }
  tokens.push(EOF);
  return Result.succeed(tokens);
};

const EOF: Token = { t: "eof", text: "<EOF>" };
/** What a failed production stands for; the first failure alone is reported. */
const BROKEN: Expr = { kind: Kind.List };

const BINARY: ReadonlyArray<ReadonlyArray<string>> = [
  ["||"],
  ["&&"],
  ["==", "!=", "<", "<=", ">", ">="],
  ["+", "-"],
  ["*", "/", "%"],
];

/**
 * Parses a whole expression; the failure is cel-go's first error message. After the first
 * error the parser sees only the end of the input, so every production returns at once.
 *
 * @example
 * parse("shardRange(object.metadata.uid, '0x0', '0x1')") // Result.succeed({ kind: 1, fn: "shardRange", … })
 */
export const parse = (text: string): Result.Result<Expr, string> => {
  const lexed = tokenize(text);
  if (Result.isFailure(lexed)) return Result.fail(lexed.failure);
  const tokens = lexed.success;
  let at = 0;
  let problem: string | undefined;
  const fail = (message: string): Expr => {
    problem ??= `Syntax error: ${message}`;
    return BROKEN;
  };
  const peek = (): Token => (problem === undefined ? (tokens[at] ?? EOF) : EOF);
  const next = (): Token => {
    const token = peek();
    if (token !== EOF) at++;
    return token;
  };
  const expect = (t: string): void => {
    const token = peek();
    if (token.t !== t)
      fail(
        token.t === "eof" ? `missing '${t}' at '<EOF>'` : `mismatched input '${token.text}' expecting '${t}'`,
      );
    else at++;
  };
  const args = (close: string): Array<Expr> => {
    const out: Array<Expr> = [];
    if (peek().t === close) {
      at++;
      return out;
    }
    for (;;) {
      out.push(expression());
      if (peek().t === ",") at++;
      else break;
    }
    expect(close);
    return out;
  };
  const primary = (): Expr => {
    const token = next();
    if (token.t === "lit" && token.value !== undefined) return token.value;
    if (token.t === "ident" || (token.t === "." && peek().t === "ident")) {
      const name = token.t === "." ? `.${next().text}` : token.text;
      if (peek().t === "(") {
        at++;
        return { kind: Kind.Call, fn: name, args: args(")") };
      }
      return { kind: Kind.Ident, name };
    }
    if (token.t === "(") {
      const inner = expression();
      expect(")");
      return inner;
    }
    if (token.t === "[") {
      args("]");
      return { kind: Kind.List };
    }
    if (token.t === "{") {
      while (peek().t !== "}" && peek().t !== "eof") next();
      expect("}");
      return { kind: Kind.Map };
    }
    return fail(`mismatched input '${token.text}' expecting ${EXPECTED}`);
  };
  const member = (): Expr => {
    let e = primary();
    for (;;) {
      if (peek().t === ".") {
        at++;
        const field = next();
        if (field.t !== "ident") return fail(`mismatched input '${field.text}' expecting IDENTIFIER`);
        if (peek().t === "(") {
          at++;
          e = { kind: Kind.Call, fn: field.text, args: args(")") };
        } else e = { kind: Kind.Select, operand: e, field: field.text };
      } else if (peek().t === "[") {
        at++;
        const index = expression();
        expect("]");
        e = { kind: Kind.Call, fn: "_[_]", args: [e, index] };
      } else return e;
    }
  };
  const unary = (): Expr => {
    const op = peek().t;
    if (op === "!" || op === "-") {
      at++;
      const operand = unary();
      if (op === "-" && operand.kind === Kind.Literal && typeof operand.value === "number")
        return { ...operand, value: -operand.value };
      return { kind: Kind.Call, fn: `${op}_`, args: [operand] };
    }
    return member();
  };
  const binary = (level: number): Expr => {
    if (level >= BINARY.length) return unary();
    let e = binary(level + 1);
    while ((BINARY[level] as ReadonlyArray<string>).includes(peek().t)) {
      const op = next().t;
      e = { kind: Kind.Call, fn: `_${op}_`, args: [e, binary(level + 1)] };
    }
    return e;
  };
  const expression = (): Expr => {
    const condition = binary(0);
    if (peek().t !== "?") return condition;
    at++;
    const then = binary(0);
    expect(":");
    return { kind: Kind.Call, fn: "_?_:_", args: [condition, then, expression()] };
  };
  const root = expression();
  if (peek().t !== "eof") fail(`extraneous input '${peek().text}' expecting <EOF>`);
  return problem === undefined ? Result.succeed(root) : Result.fail(problem);
};

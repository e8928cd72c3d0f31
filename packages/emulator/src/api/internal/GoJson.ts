/**
 * The syntax error Go's encoding/json reports for a malformed document (`invalid character 'x'
 * looking for beginning of value`, `unexpected end of JSON input`…), so decode failures read as
 * the apiserver's. Only used once JSON.parse has failed.
 */

const quoteChar = (c: string): string => {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return `'\\u${code.toString(16).padStart(4, "0")}'`;
  if (c === "\\") return "'\\\\'";
  return `'${c}'`;
};

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

type Step = { readonly ok: true; readonly at: number } | { readonly ok: false; readonly error: string };
const err = (c: string | undefined, context: string): Step =>
  c === undefined
    ? { ok: false, error: "unexpected end of JSON input" }
    : { ok: false, error: `invalid character ${quoteChar(c)} ${context}` };

const skip = (s: string, i: number): number => {
  let j = i;
  while (isSpace(s[j])) j++;
  return j;
};

const literal = (s: string, i: number, word: string): Step => {
  for (let k = 1; k < word.length; k++) {
    const c = s[i + k];
    if (c !== word[k]) return err(c, `in literal ${word} (expecting ${quoteChar(word[k] as string)})`);
  }
  return { ok: true, at: i + word.length };
};

const string = (s: string, i: number): Step => {
  let j = i + 1;
  while (j < s.length) {
    const c = s[j] as string;
    if (c === '"') return { ok: true, at: j + 1 };
    if (c === "\\") {
      const e = s[j + 1];
      if (e === undefined) return err(undefined, "");
      if ('"\\/bfnrt'.includes(e)) j += 2;
      else if (e === "u") {
        for (let k = 2; k < 6; k++)
          if (!/[0-9a-fA-F]/.test(s[j + k] ?? ""))
            return err(s[j + k], "in \\u hexadecimal character escape");
        j += 6;
      } else return err(e, "in string escape code");
      continue;
    }
    if (c.charCodeAt(0) < 0x20) return err(c, "in string literal");
    j++;
  }
  return err(undefined, "");
};

const number = (s: string, i: number): Step => {
  let j = i;
  if (s[j] === "-") j++;
  if (s[j] === "0") j++;
  else if (/[1-9]/.test(s[j] ?? "")) while (/[0-9]/.test(s[j] ?? "")) j++;
  else return err(s[j], "in numeric literal");
  if (s[j] === ".") {
    j++;
    if (!/[0-9]/.test(s[j] ?? "")) return err(s[j], "after decimal point in numeric literal");
    while (/[0-9]/.test(s[j] ?? "")) j++;
  }
  if (s[j] === "e" || s[j] === "E") {
    j++;
    if (s[j] === "+" || s[j] === "-") j++;
    if (!/[0-9]/.test(s[j] ?? "")) return err(s[j], "in exponent of numeric literal");
    while (/[0-9]/.test(s[j] ?? "")) j++;
  }
  return { ok: true, at: j };
};

const value = (s: string, start: number, depth: number): Step => {
  const i = skip(s, start);
  const c = s[i];
  if (depth > 10000) return { ok: false, error: "exceeded max depth" };
  switch (c) {
    case "{": {
      let j = skip(s, i + 1);
      if (s[j] === "}") return { ok: true, at: j + 1 };
      for (;;) {
        if (s[j] !== '"') return err(s[j], "looking for beginning of object key string");
        const k = string(s, j);
        if (!k.ok) return k;
        j = skip(s, k.at);
        if (s[j] !== ":") return err(s[j], "after object key");
        const v = value(s, j + 1, depth + 1);
        if (!v.ok) return v;
        j = skip(s, v.at);
        if (s[j] === "}") return { ok: true, at: j + 1 };
        if (s[j] !== ",") return err(s[j], "after object key:value pair");
        j = skip(s, j + 1);
      }
    }
    case "[": {
      let j = skip(s, i + 1);
      if (s[j] === "]") return { ok: true, at: j + 1 };
      for (;;) {
        const v = value(s, j, depth + 1);
        if (!v.ok) return v;
        j = skip(s, v.at);
        if (s[j] === "]") return { ok: true, at: j + 1 };
        if (s[j] !== ",") return err(s[j], "after array element");
        j += 1;
      }
    }
    case '"':
      return string(s, i);
    case "t":
      return literal(s, i, "true");
    case "f":
      return literal(s, i, "false");
    case "n":
      return literal(s, i, "null");
    default:
      if (c === "-" || /[0-9]/.test(c ?? "")) return number(s, i);
      return err(c, "looking for beginning of value");
  }
};

/**
 * Go's error for a malformed JSON text (undefined when it is well-formed).
 *
 * @example
 * goJsonError("{nope") // "invalid character 'n' looking for beginning of object key string"
 */
export const goJsonError = (text: string): string | undefined => {
  const v = value(text, 0, 0);
  if (!v.ok) return v.error;
  const end = skip(text, v.at);
  return end < text.length
    ? `invalid character ${quoteChar(text[end] as string)} after top-level value`
    : undefined;
};

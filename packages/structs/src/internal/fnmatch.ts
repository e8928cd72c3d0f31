/**
 * Shell-style wildcard matching with the semantics of Python's `fnmatch.fnmatchcase`: `*` any
 * run of characters, `?` one character, `[seq]` / `[!seq]` a character (not) in a set with
 * `a-z` ranges; an unclosed `[` is literal. Case-sensitive, whole-string matching.
 */

type Token =
  | { readonly t: "star" }
  | { readonly t: "any" }
  | { readonly t: "lit"; readonly c: string }
  | {
      readonly t: "set";
      readonly negated: boolean;
      readonly ranges: ReadonlyArray<readonly [string, string]>;
    };

const parseSet = (body: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> => {
  const ranges: Array<readonly [string, string]> = [];
  for (let k = 0; k < body.length; ) {
    const lo = body[k]!;
    if (body[k + 1] === "-" && k + 2 < body.length) {
      const hi = body[k + 2]!;
      if (lo <= hi) ranges.push([lo, hi]); // reversed ranges are empty, as in Python
      k += 3;
    } else {
      ranges.push([lo, lo]);
      k += 1;
    }
  }
  return ranges;
};

const tokenize = (pattern: string): ReadonlyArray<Token> => {
  const chars = Array.from(pattern);
  const tokens: Array<Token> = [];
  for (let i = 0; i < chars.length; ) {
    const c = chars[i++]!;
    if (c === "*") {
      if (tokens.at(-1)?.t !== "star") tokens.push({ t: "star" });
    } else if (c === "?") {
      tokens.push({ t: "any" });
    } else if (c === "[") {
      let j = i;
      if (chars[j] === "!") j++;
      if (chars[j] === "]") j++;
      while (j < chars.length && chars[j] !== "]") j++;
      if (j >= chars.length) {
        tokens.push({ t: "lit", c });
      } else {
        const negated = chars[i] === "!";
        tokens.push({ t: "set", negated, ranges: parseSet(chars.slice(negated ? i + 1 : i, j)) });
        i = j + 1;
      }
    } else {
      tokens.push({ t: "lit", c });
    }
  }
  return tokens;
};

const matchesOne = (token: Token, c: string): boolean => {
  switch (token.t) {
    case "any":
      return true;
    case "lit":
      return token.c === c;
    case "set":
      return token.ranges.some(([lo, hi]) => lo <= c && c <= hi) !== token.negated;
    case "star":
      return false;
  }
};

/**
 * Whether `name` matches the glob `pattern` as a whole.
 *
 * @example
 * fnmatch("ns1", "ns?") // true
 * fnmatch("ns1", "[!a-m]s1") // true
 */
export const fnmatch = (name: string, pattern: string): boolean => {
  const tokens = tokenize(pattern);
  const chars = Array.from(name);
  // Iterative wildcard matching with backtracking to the last star: O(n·m) at worst.
  let ti = 0;
  let ci = 0;
  let starTi = -1;
  let starCi = 0;
  while (ci < chars.length) {
    const token = tokens[ti];
    if (token !== undefined && token.t === "star") {
      starTi = ti++;
      starCi = ci;
    } else if (token !== undefined && matchesOne(token, chars[ci]!)) {
      ti++;
      ci++;
    } else if (starTi >= 0) {
      ti = starTi + 1;
      ci = ++starCi;
    } else {
      return false;
    }
  }
  while (tokens[ti]?.t === "star") ti++;
  return ti === tokens.length;
};

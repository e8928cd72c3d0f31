/**
 * An HTTP/1.1 response's head (the status line and the header lines), parsed in one pass with
 * the checks RFC 9110 and RFC 9112 ask of a client: header names of token characters only (no
 * folded lines), one agreed `content-length`, the body's framing in the RFC's order, and whether
 * the connection may carry another request (never after both framings, a smuggling risk). For the
 * response reader (`http1Response.ts`).
 */
import { addHeader, emptyHeaders } from "./responseHeaders.ts";

/** How a response's body is delimited. */
export type Framing =
  | { readonly _tag: "None" }
  | { readonly _tag: "Length"; readonly length: number }
  | { readonly _tag: "Chunked" }
  | { readonly _tag: "UntilClose" };

/** A response's status line and headers, read, with what they say of its body and connection. */
export interface Head {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly keepAlive: boolean;
  readonly framing: Framing;
}

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const DIGITS = /^\d{1,15}$/;

/** The comma-separated tokens of a header's value, trimmed and lower-cased. */
const tokensOf = (value: string | undefined): Array<string> => {
  if (value === undefined) return [];
  // The usual value is one token: no list to split.
  if (!value.includes(",")) return [value.trim().toLowerCase()];
  return value.split(",").map((t) => t.trim().toLowerCase());
};

/** The body's framing and the connection's fate, as RFC 9112 section 6.3 orders them. */
const framingOf = (status: number, headers: Record<string, string>): Framing | string => {
  if (status === 204 || status === 304) return { _tag: "None" };
  const codings = tokensOf(headers["transfer-encoding"]);
  if (codings.length > 0) return codings.at(-1) === "chunked" ? { _tag: "Chunked" } : { _tag: "UntilClose" };
  const declared = headers["content-length"];
  if (declared === undefined) return { _tag: "UntilClose" };
  if (DIGITS.test(declared)) return { _tag: "Length", length: Number(declared) };
  const values = new Set(declared.split(",").map((v) => v.trim()));
  const [only] = values;
  if (values.size !== 1 || only === undefined || !DIGITS.test(only))
    return `invalid content-length ${JSON.stringify(declared)}`;
  return { _tag: "Length", length: Number(only) };
};

/**
 * Whether `code` may be in a header's name (RFC 9110's `tchar`), as a table by character code:
 * 1 for a lower-case character or other token character, 2 for an upper-case letter.
 */
const TCHAR = (() => {
  const table = new Uint8Array(128);
  for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz") table[c.charCodeAt(0)] = 1;
  for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") table[c.charCodeAt(0)] = 2;
  return table;
})();

/**
 * The header name ending at `colon` in `text` from `from`, lower-cased; `undefined` if it is
 * empty or holds a character a name may not (a space, a folded line's indent).
 * Checked by character codes, and lower-cased only when it has an upper-case letter.
 */
const nameOf = (text: string, from: number, colon: number): string | undefined => {
  if (colon <= from) return undefined;
  let upper = false;
  for (let i = from; i < colon; i++) {
    const code = text.charCodeAt(i);
    const kind = code < 128 ? (TCHAR[code] as number) : 0;
    if (kind === 0) return undefined;
    if (kind === 2) upper = true;
  }
  const name = text.slice(from, colon);
  return upper ? name.toLowerCase() : name;
};

/**
 * The head in `text` (status line and header lines, without the blank line), or why not. One
 * pass over the text: lines are found in place, not split into an array first.
 *
 * @example
 * ```ts
 * parseHead("HTTP/1.1 200 OK\r\ncontent-length: 2")
 * // { status: 200, headers: { "content-length": "2" }, keepAlive: true, framing: { _tag: "Length", length: 2 } }
 * ```
 */
export const parseHead = (text: string): Head | string => {
  const firstEnd = text.indexOf("\r\n");
  const statusLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  const match = STATUS_LINE.exec(statusLine);
  if (match === null) return `not an HTTP/1.x status line: ${JSON.stringify(statusLine.slice(0, 80))}`;
  const headers = emptyHeaders();
  // Each line after the status line is a header line (an empty one too: it is malformed).
  for (let from = firstEnd + 2; firstEnd !== -1; ) {
    const next = text.indexOf("\r\n", from);
    const end = next === -1 ? text.length : next;
    const colon = text.indexOf(":", from);
    const name = colon === -1 || colon > end ? undefined : nameOf(text, from, colon);
    if (name === undefined)
      return `malformed header line ${JSON.stringify(text.slice(from, end).slice(0, 80))}`;
    addHeader(headers, name, text.slice(colon + 1, end).trim());
    if (next === -1) break;
    from = next + 2;
  }
  const status = Number(match[2]);
  const framing = framingOf(status, headers);
  if (typeof framing === "string") return framing;
  const connection = tokensOf(headers.connection);
  const keepAlive =
    framing._tag !== "UntilClose" &&
    !connection.includes("close") &&
    // RFC 9112: a message with both framings is a smuggling risk; the connection is not reused.
    !(framing._tag === "Chunked" && headers["content-length"] !== undefined) &&
    (match[1] === "1" || connection.includes("keep-alive"));
  return { status, headers, keepAlive, framing };
};

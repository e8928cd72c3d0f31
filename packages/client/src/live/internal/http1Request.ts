/**
 * The bytes of an HTTP/1.1 request for the lean request path of the live transport: the request
 * line, `host`, the request's headers and, with a body, its `content-length`, then the body, in
 * one buffer (one write, one TLS record for the usual small request). A path or header that
 * would break the framing (a space or line break in the path, a line break or NUL in a value,
 * a name that is not a token, a character beyond Latin-1) is refused with a reason naming it:
 * nothing is sent.
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII only: a request target has no spaces or controls (the client percent-encodes). */
const TARGET = /^[\x21-\x7e]+$/;
/** Field values: tabs, visible ASCII, spaces and obs-text (Latin-1); no CR, LF or NUL. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The request's bytes, or why it cannot be sent.
 *
 * @example
 * ```ts
 * encode("GET", "/api/v1/pods", "h:6443", { accept: "application/json" }, undefined)
 * // Buffer "GET /api/v1/pods HTTP/1.1\r\nhost: h:6443\r\naccept: application/json\r\n\r\n"
 * ```
 */
export const encode = (
  method: string,
  path: string,
  host: string,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | undefined,
): Buffer | string => {
  if (!TARGET.test(path))
    return `the request path ${JSON.stringify(path.slice(0, 200))} has a space or control character`;
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name] as string;
    if (!TOKEN.test(name)) return `the header name ${JSON.stringify(name.slice(0, 80))} is not a token`;
    // The value is not quoted back: it may be a credential.
    if (!VALUE.test(value))
      return `the value of the header ${name} has a line break, NUL or a character beyond Latin-1`;
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "transfer-encoding") continue;
    head += `${name}: ${value}\r\n`;
  }
  if (body !== undefined) head += `content-length: ${body.byteLength}\r\n`;
  head += "\r\n";
  if (body === undefined || body.byteLength === 0) return Buffer.from(head, "latin1");
  const headBytes = Buffer.byteLength(head, "latin1");
  const bytes = Buffer.allocUnsafe(headBytes + body.byteLength);
  bytes.write(head, 0, "latin1");
  bytes.set(body, headBytes);
  return bytes;
};

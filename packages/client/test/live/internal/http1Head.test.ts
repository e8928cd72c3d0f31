// An HTTP/1.1 response's head (src/live/internal/http1Head.ts): the status, the headers with
// lower-case names, the body's framing in RFC 9112's order, whether the connection may be reused,
// and a reason naming what is malformed. (The reader around it is in http1Response.test.ts.)
import { describe, expect, it } from "vitest";
import { parseHead } from "../../../src/live/internal/http1Head.ts";

const head = (...lines: Array<string>) => lines.join("\r\n");

describe("parseHead", () => {
  it.each([
    ["a length", head("HTTP/1.1 200 OK", "Content-Length: 2"), 200, { _tag: "Length", length: 2 }, true],
    ["chunked", head("HTTP/1.1 200 OK", "transfer-encoding: chunked"), 200, { _tag: "Chunked" }, true],
    ["no framing: until close", head("HTTP/1.1 200 OK"), 200, { _tag: "UntilClose" }, false],
    ["a 204 has no body", head("HTTP/1.1 204 No Content"), 204, { _tag: "None" }, true],
    [
      "a 304 has no body",
      head("HTTP/1.1 304 Not Modified", "content-length: 9"),
      304,
      { _tag: "None" },
      true,
    ],
    [
      "repeated equal lengths",
      head("HTTP/1.1 200 OK", "content-length: 3, 3"),
      200,
      { _tag: "Length", length: 3 },
      true,
    ],
    [
      "a coding not last chunked",
      head("HTTP/1.1 200 OK", "transfer-encoding: chunked, gzip"),
      200,
      { _tag: "UntilClose" },
      false,
    ],
    [
      "connection: close",
      head("HTTP/1.1 200 OK", "content-length: 0", "connection: close"),
      200,
      { _tag: "Length", length: 0 },
      false,
    ],
    [
      "HTTP/1.0 without keep-alive",
      head("HTTP/1.0 200 OK", "content-length: 0"),
      200,
      { _tag: "Length", length: 0 },
      false,
    ],
    [
      "HTTP/1.0 with keep-alive",
      head("HTTP/1.0 200 OK", "content-length: 0", "Connection: Keep-Alive"),
      200,
      { _tag: "Length", length: 0 },
      true,
    ],
    // Both framings: a smuggling risk, so the body is read as chunked and the connection dropped.
    [
      "both framings",
      head("HTTP/1.1 200 OK", "content-length: 5", "transfer-encoding: chunked"),
      200,
      { _tag: "Chunked" },
      false,
    ],
  ])("reads %s", (_, text, status, framing, keepAlive) => {
    const parsed = parseHead(text);
    expect(parsed).toMatchObject({ status, framing, keepAlive });
  });

  it("lower-cases header names and joins repeated ones", () => {
    const parsed = parseHead(
      head("HTTP/1.1 200 OK", 'Warning: 299 - "a"', 'warning: 299 - "b"', "X-Thing:  v "),
    );
    expect(typeof parsed).toBe("object");
    if (typeof parsed === "object") {
      expect({ ...parsed.headers }).toEqual({ warning: '299 - "a", 299 - "b"', "x-thing": "v" });
    }
  });

  it.each([
    ["not a status line", head("HTTP/2 200", "a: b"), 'not an HTTP/1.x status line: "HTTP/2 200"'],
    ["a status out of range", head("HTTP/1.1 099 Odd"), 'not an HTTP/1.x status line: "HTTP/1.1 099 Odd"'],
    ["a folded header line", head("HTTP/1.1 200 OK", "a: b", " c"), 'malformed header line " c"'],
    ["a space in a name", head("HTTP/1.1 200 OK", "bad name: x"), 'malformed header line "bad name: x"'],
    ["an empty header line", head("HTTP/1.1 200 OK", "", "a: b"), 'malformed header line ""'],
    ["disagreeing lengths", head("HTTP/1.1 200 OK", "content-length: 1, 2"), 'invalid content-length "1, 2"'],
    ["a negative length", head("HTTP/1.1 200 OK", "content-length: -1"), 'invalid content-length "-1"'],
  ])("names what is malformed: %s", (_, text, reason) => {
    expect(parseHead(text)).toBe(reason);
  });
});

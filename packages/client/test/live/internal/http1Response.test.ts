// The HTTP/1.1 response reader: tables of whole responses fed at once and split at every byte
// (the result must not depend on how the bytes arrive), framings (content-length, chunked with
// extensions and trailers, until close, none for 204/304), interim 1xx responses skipped,
// whether the connection may be reused, and malformed or cut responses with their reasons.
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Http1Response from "../../../src/live/internal/http1Response.ts";

const feed = (parts: ReadonlyArray<string | Buffer>, end = false): Http1Response.Step => {
  const reader = Http1Response.reader();
  let step: Http1Response.Step = { _tag: "More" };
  for (const part of parts) {
    step = reader.push(typeof part === "string" ? Buffer.from(part, "latin1") : part);
    if (step._tag !== "More") return step;
  }
  return end ? reader.end() : step;
};

/** Every split of `text` into single bytes, and into two parts at each position. */
const splits = (text: string): Array<Array<string>> => [
  [...text],
  ...Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)]),
];

const summary = (step: Http1Response.Step) =>
  step._tag === "Done"
    ? {
        status: step.response.status,
        headers: step.response.headers,
        body: Buffer.from(step.response.body).toString("latin1"),
        reusable: step.response.reusable,
      }
    : step;

describe("a whole response", () => {
  it.each([
    [
      "content-length",
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
      { status: 200, body: '{"a":1}', reusable: true },
    ],
    [
      "chunked, with an extension and a trailer",
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\nA\r\n:123456789\r\n0\r\nX-Trailer: t\r\n\r\n',
      { status: 200, body: '{"a":123456789', reusable: true },
    ],
    [
      "an empty body",
      "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n",
      { status: 201, body: "", reusable: true },
    ],
    ["204 has no body", "HTTP/1.1 204 No Content\r\n\r\n", { status: 204, body: "", reusable: true }],
    [
      "304 has no body",
      "HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n",
      { status: 304, body: "", reusable: true },
    ],
    [
      "an interim 100 Continue before the response",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
      { status: 200, body: "ok", reusable: true },
    ],
    [
      "connection: close",
      "HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 2\r\n\r\nok",
      { status: 200, body: "ok", reusable: false },
    ],
    [
      "HTTP/1.0 without keep-alive",
      "HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok",
      { status: 200, body: "ok", reusable: false },
    ],
    [
      "HTTP/1.0 with keep-alive",
      "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 2\r\n\r\nok",
      { status: 200, body: "ok", reusable: true },
    ],
    [
      "both framings: chunked wins, the connection is not reused",
      "HTTP/1.1 200 OK\r\ncontent-length: 99\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
      { status: 200, body: "ok", reusable: false },
    ],
    [
      "repeated identical content-lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 2, 2\r\n\r\nok",
      { status: 200, body: "ok", reusable: true },
    ],
    [
      "a status line without a reason",
      "HTTP/1.1 404\r\ncontent-length: 0\r\n\r\n",
      { status: 404, body: "", reusable: true },
    ],
  ])("%s, however the bytes are split", (_, text, expected) => {
    for (const parts of [[text], ...splits(text)]) expect(summary(feed(parts))).toMatchObject(expected);
  });

  it("lower-cases header names and joins repeated ones", () => {
    const step = feed(["HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a:  2 \r\nWarning: w\r\ncontent-length: 0\r\n\r\n"]);
    expect(summary(step)).toMatchObject({ headers: { "x-a": "1, 2", warning: "w", "content-length": "0" } });
  });

  it("headers named after an object's inherited properties are headers like any other", () => {
    // Lower-cased, `Constructor` and `__proto__` are the names of properties every object inherits.
    const step = feed(["HTTP/1.1 200 OK\r\n__proto__: p\r\nConstructor: c\r\ncontent-length: 0\r\n\r\n"]);
    expect(step._tag).toBe("Done");
    const headers = step._tag === "Done" ? step.response.headers : {};
    expect(Object.entries(headers)).toEqual([
      ["__proto__", "p"],
      ["constructor", "c"],
      ["content-length", "0"],
    ]);
  });

  it("a body read until the connection closes ends with it, and is not reusable", () => {
    const text = "HTTP/1.1 200 OK\r\n\r\nall of it";
    for (const parts of splits(text))
      expect(summary(feed(parts, true))).toMatchObject({ status: 200, body: "all of it", reusable: false });
  });

  it("a response followed by more bytes is done, but its connection is out of step", () => {
    expect(summary(feed(["HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1"]))).toMatchObject({
      body: "ok",
      reusable: false,
    });
    expect(
      summary(feed(["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nextra"])),
    ).toMatchObject({ body: "", reusable: false });
  });

  it("a binary body keeps its bytes", () => {
    const body = Buffer.from([0, 255, 13, 10, 13, 10, 128]);
    const step = feed([Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n"), body])]);
    expect(step._tag === "Done" && Buffer.from(step.response.body).equals(body)).toBe(true);
  });
});

describe("malformed and cut responses", () => {
  it.each([
    ["not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.x status line"],
    ["HTTP/2 preface", "HTTP/2 200\r\n\r\n", "not an HTTP/1.x status line"],
    ["a header without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", "malformed header line"],
    ["a folded header line", "HTTP/1.1 200 OK\r\nx: a\r\n  b\r\n\r\n", "malformed header line"],
    ["an invalid content-length", "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n", "invalid content-length"],
    [
      "differing content-lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\n",
      "invalid content-length",
    ],
    [
      "an invalid chunk size",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "invalid chunk size",
    ],
    [
      "chunk data without its CRLF",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nokX",
      "chunk data not followed by CRLF",
    ],
    ["a protocol switch", "HTTP/1.1 101 Switching Protocols\r\n\r\n", "unexpected protocol switch"],
  ])("%s", (_, text, reason) => {
    const step = feed([text]);
    expect(step._tag).toBe("Malformed");
    expect(step._tag === "Malformed" && step.reason).toContain(reason);
  });

  it("a head beyond the limit is refused without waiting for its end", () => {
    const reader = Http1Response.reader();
    expect(reader.push(Buffer.from("HTTP/1.1 200 OK\r\n"))._tag).toBe("More");
    const step = reader.push(Buffer.alloc(Http1Response.MAX_HEAD_BYTES, "a"));
    expect(step).toEqual({
      _tag: "Malformed",
      reason: `response head larger than ${Http1Response.MAX_HEAD_BYTES} bytes`,
    });
  });

  it("an endless chunk-size line is refused", () => {
    const step = feed(["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", Buffer.alloc(5000, "1")]);
    expect(step).toEqual({ _tag: "Malformed", reason: "chunk-size line or trailer too long" });
  });

  it.each([
    ["nothing at all", [], false],
    ["half a head", ["HTTP/1.1 200"], true],
    ["half a body", ["HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab"], true],
    ["half a chunked body", ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab"], true],
  ])("the stream ending with %s is a cut (started: %s)", (_, parts, started) => {
    expect(feed(parts as Array<string>, true)).toEqual({ _tag: "Cut", started });
  });

  it("bytes after a finished response are refused", () => {
    const reader = Http1Response.reader();
    expect(reader.push(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n"))._tag).toBe("Done");
    expect(reader.push(Buffer.from("x"))).toEqual({
      _tag: "Malformed",
      reason: "bytes after the end of the response",
    });
  });
});

/**
 * The head's header lines as plainly as they can be read: split into lines, each name checked by
 * a regular expression and lower-cased, each value trimmed; repeated names joined by ", ".
 * `undefined` for a malformed line. The reader scans the head in one pass instead; both must agree.
 */
const plainHeaders = (lines: ReadonlyArray<string>): Record<string, string> | undefined => {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return undefined;
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return headers;
};

describe("header lines, generated", () => {
  // Names and values from characters a name may hold, and some it may not (space, tab, `:`,
  // `@`, `(`, a Latin-1 letter), with upper-case letters to lower-case. No empty line: it would end
  // the head.
  const char = fc.constantFrom(..."aZx-_.!~09 \t:@(é");
  const line = fc.oneof(
    fc
      .tuple(fc.string({ unit: char, maxLength: 6 }), fc.string({ unit: char, maxLength: 8 }))
      .map(([name, value]) => `${name}:${value}`),
    fc.string({ unit: char, minLength: 1, maxLength: 10 }),
  );

  it("are read as a plain split-and-check reading reads them", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
        const head = ["HTTP/1.1 200 OK", ...lines, "content-length: 0"].join("\r\n");
        const step = feed([`${head}\r\n\r\n`]);
        const expected = plainHeaders([...lines, "content-length: 0"]);
        if (expected === undefined) {
          expect(step._tag === "Malformed" && step.reason).toContain("malformed header line");
        } else if (step._tag === "Done") {
          expect(step.response.headers).toEqual(expected);
        } else {
          // A generated line can only spoil the framing: a `content-length` it repeated differently.
          expect(step._tag === "Malformed" && step.reason).toContain("invalid content-length");
        }
      }),
      { numRuns: 2000 },
    );
  });
});

// The request bytes of the lean request path: the request line, host, headers and body framed by
// content-length in one buffer; and paths or headers that would break the framing refused with a
// reason (a credential in a refused value never quoted). The host header's value comes from the
// parsed server URL (requestTarget.test.ts).
import { describe, expect, it } from "vitest";
import * as Http1Request from "../../../src/live/internal/http1Request.ts";

const text = (bytes: Buffer | string) => (typeof bytes === "string" ? bytes : bytes.toString("latin1"));

describe("request bytes", () => {
  it("a GET without a body has no content-length", () => {
    expect(
      text(
        Http1Request.encode(
          "GET",
          "/api/v1/pods?limit=5",
          "h:6443",
          { accept: "application/json" },
          undefined,
        ),
      ),
    ).toBe("GET /api/v1/pods?limit=5 HTTP/1.1\r\nhost: h:6443\r\naccept: application/json\r\n\r\n");
  });

  it("a body is framed by its length in bytes (not characters)", () => {
    const body = new TextEncoder().encode('{"a":"ü"}');
    expect(
      text(Http1Request.encode("PATCH", "/x", "h", { "content-type": "application/merge-patch+json" }, body)),
    ).toBe(
      `PATCH /x HTTP/1.1\r\nhost: h\r\ncontent-type: application/merge-patch+json\r\ncontent-length: 10\r\n\r\n${Buffer.from(body).toString("latin1")}`,
    );
  });

  it("an empty body says so (content-length: 0)", () => {
    expect(text(Http1Request.encode("DELETE", "/x", "h", {}, new Uint8Array()))).toBe(
      "DELETE /x HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n",
    );
  });

  it("framing headers from the caller are replaced by the transport's own", () => {
    expect(
      text(
        Http1Request.encode(
          "POST",
          "/x",
          "h",
          { Host: "evil", "Content-Length": "99", "transfer-encoding": "chunked" },
          new Uint8Array([49]),
        ),
      ),
    ).toBe("POST /x HTTP/1.1\r\nhost: h\r\ncontent-length: 1\r\n\r\n1");
  });
});

describe("refused requests", () => {
  it.each([
    ["a space in the path", "/api/v1/pods/a b", {}, "has a space or control character"],
    ["a line break in the path", "/x\r\nX-Evil: 1", {}, "has a space or control character"],
    ["a header name that is not a token", "/x", { "bad name": "v" }, "is not a token"],
    ["a line break in a value", "/x", { authorization: "Bearer s3cret\r\nX-Evil: 1" }, "has a line break"],
    ["a NUL in a value", "/x", { "x-a": "a\u0000b" }, "has a line break, NUL"],
    ["a character beyond Latin-1", "/x", { "x-a": "日本" }, "beyond Latin-1"],
  ])("%s", (_, path, headers, reason) => {
    const result = Http1Request.encode("GET", path, "h", headers, undefined);
    expect(typeof result).toBe("string");
    expect(result).toContain(reason);
    expect(result).not.toContain("s3cret");
  });
});

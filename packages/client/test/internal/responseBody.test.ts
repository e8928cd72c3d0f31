/**
 * A response's body as the client reads it: blank bodies (whitespace of every kind, Unicode
 * spaces included) give no value, or `{}` where the caller asks for an object; JSON gives its
 * value; a body that is not JSON fails with a message naming the request, and says whether the
 * server claimed JSON or sent something else (whose start it quotes).
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { parsed, parseJson, textOf } from "../../src/internal/responseBody.ts";
import type { TransportResponse } from "../../src/KubeTransport.ts";

const response = (body: string, contentType = "application/json"): TransportResponse => ({
  status: 200,
  headers: { "content-type": contentType },
  body: new TextEncoder().encode(body),
});

describe("parsed", () => {
  it.each([
    ["", false, undefined],
    ["", true, {}],
    [" \t\r\n\f\v", false, undefined],
    ["\u00a0\u2003 ", false, undefined],
    ["\u00a0\u2003 ", true, {}],
    ["null", false, null],
    ["null", true, {}],
    [' {"a": 1} ', false, { a: 1 }],
    ["[1, 2]", true, [1, 2]],
    [' \n{"ü": "ß"}\n', false, { ü: "ß" }],
    ["0", true, 0],
  ] as const)("%j (orEmpty %s) gives %j", (body, orEmpty, expected) => {
    const exit = Effect.runSyncExit(parsed(response(body), () => "GET /x", orEmpty));
    assert.deepStrictEqual(exit, Exit.succeed(expected));
  });

  it.each([
    ['{"a":', "application/json", "Malformed JSON in the response to GET /api/v1/pods."],
    ['{"a":', "application/json;charset=utf-8", "Malformed JSON in the response to GET /api/v1/pods."],
    // JSON's whitespace is ASCII only: a no-break space before the value is not JSON.
    ["\u00a0{}", "application/json", "Malformed JSON in the response to GET /api/v1/pods."],
    [
      "<html>bad gateway</html>",
      "text/html",
      "Not JSON in the response to GET /api/v1/pods: <html>bad gateway</html>",
    ],
    ["x".repeat(200), "", `Not JSON in the response to GET /api/v1/pods: ${"x".repeat(80)}`],
  ])("%j as %j fails: %s", (body, contentType, message) => {
    const error = Effect.runSync(
      Effect.flip(parsed(response(body, contentType), () => "GET /api/v1/pods", false)),
    );
    assert.strictEqual(error.reason, "TransportError");
    assert.strictEqual(error.message, message);
  });

  it("names the request only when the body fails", () => {
    let named = 0;
    const what = () => {
      named += 1;
      return "GET /x";
    };
    Effect.runSync(parsed(response("{}"), what, false));
    Effect.runSync(parsed(response(""), what, true));
    assert.strictEqual(named, 0);
    Effect.runSyncExit(parsed(response("{"), what, false));
    assert.strictEqual(named, 1);
  });
});

describe("parseJson and textOf", () => {
  it("parseJson gives undefined for a blank body and the value otherwise", () => {
    assert.isUndefined(Effect.runSync(parseJson(response("  "), "GET /x")));
    assert.deepStrictEqual(Effect.runSync(parseJson(response('{"kind":"Status"}'), "GET /x")), {
      kind: "Status",
    });
  });

  it("textOf decodes the body as UTF-8", () => {
    assert.strictEqual(textOf(response("héllo ✓")), "héllo ✓");
  });
});

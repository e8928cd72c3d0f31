// Covers the mapping of HTTP statuses and Status bodies to KubeApiError (docs/behaviour/watching.md#api-client, vectors docs/behaviour/watching.md#api-client):
// successes are no errors, the status → reason table, Status payloads, textual and non-Status
// payloads, truncation of long texts, Retry-After, and watch ERROR Status objects.
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import { KubeApiError, reasonOf, truncateText } from "../src/KubeApiError.ts";

const statusJson = (code: number, message = "msg") =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Status",
    status: "Failure",
    code,
    message,
    details: { name: "x" },
  });

describe("KubeApiError.fromResponse", () => {
  it.each([200, 201, 202, 204, 299, 300, 301, 304, 399])("status %i is not an error", (status) => {
    assert.isUndefined(KubeApiError.fromResponse({ status, headers: {}, body: "whatever" }));
  });

  it.each([
    [400, "BadRequest"],
    [401, "Unauthorized"],
    [403, "Forbidden"],
    [404, "NotFound"],
    [409, "Conflict"],
    [410, "Gone"],
    [422, "Invalid"],
    [429, "TooManyRequests"],
    [405, "ClientError"],
    [415, "ClientError"],
    [499, "ClientError"],
    [500, "ServerError"],
    [503, "ServerError"],
    [599, "ServerError"],
    [666, "ClientError"],
    [999, "ClientError"],
  ] as const)("status %i ⇒ %s", (status, reason) => {
    const error = KubeApiError.fromResponse({ status, headers: {}, body: statusJson(status) });
    assert.strictEqual(error?.reason, reason);
    assert.strictEqual(error?.status, status);
    assert.strictEqual(reasonOf(status), reason);
    assert.strictEqual(KubeApiError.reasonOf(status), reason);
  });

  it("keeps code, message and details of a Status payload", () => {
    const error = KubeApiError.fromResponse({ status: 404, headers: {}, body: statusJson(404, "not here") });
    assert.strictEqual(error?.code, 404);
    assert.strictEqual(error?.message, "not here");
    assert.deepStrictEqual(error?.details, { name: "x" });
    assert.strictEqual(error?.payload?.kind, "Status");
  });

  it("accepts bytes as well as strings", () => {
    const error = KubeApiError.fromResponse({
      status: 409,
      headers: {},
      body: new TextEncoder().encode(statusJson(409, "exists")),
    });
    assert.strictEqual(error?.message, "exists");
  });

  it("keeps an unparsable text as the message, with no code or details", () => {
    const error = KubeApiError.fromResponse({ status: 500, headers: {}, body: "  boom, not json \n" });
    assert.strictEqual(error?.message, "boom, not json");
    assert.isUndefined(error?.code);
    assert.isUndefined(error?.details);
    assert.isUndefined(error?.payload);
  });

  it("drops a JSON payload that is not a Status", () => {
    const error = KubeApiError.fromResponse({
      status: 500,
      headers: {},
      body: '{"kind":"Secret","data":{"x":"c2VjcmV0"}}',
    });
    assert.strictEqual(error?.message, "");
    assert.isUndefined(error?.code);
    assert.isUndefined(error?.details);
    assert.isUndefined(error?.payload);
  });

  it("truncates a 10 000-character text to 256 characters", () => {
    const error = KubeApiError.fromResponse({ status: 500, headers: {}, body: "helloworld".repeat(1000) });
    assert.strictEqual(error?.message, "helloworld".repeat(25) + "hel...");
    assert.strictEqual(error?.message.length, 256);
  });

  it("an empty body gives an empty message", () => {
    assert.strictEqual(KubeApiError.fromResponse({ status: 503, headers: {}, body: undefined })?.message, "");
  });

  it.each([
    ["header", { "Retry-After": "10" }, statusJson(429), 10],
    ["header as float", { "retry-after": "7.9" }, statusJson(429), 7],
    ["details", {}, JSON.stringify({ kind: "Status", code: 429, details: { retryAfterSeconds: 10 } }), 10],
    [
      "header wins over details",
      { "retry-after": "3" },
      JSON.stringify({ kind: "Status", code: 429, details: { retryAfterSeconds: 10 } }),
      3,
    ],
    ["none", {}, statusJson(429), undefined],
    ["garbage header", { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }, statusJson(429), undefined],
  ] as const)("Retry-After from the %s", (_, headers, body, expected) => {
    assert.strictEqual(
      KubeApiError.fromResponse({ status: 429, headers, body })?.retryAfterSeconds,
      expected,
    );
  });
});

describe("KubeApiError.fromStatus (watch ERROR events)", () => {
  it.each([
    [410, "Gone"],
    [500, "ServerError"],
    [403, "Forbidden"],
    [undefined, "ServerError"],
    [200, "ServerError"],
  ] as const)("code %s ⇒ %s", (code, reason) => {
    const error = KubeApiError.fromStatus({
      kind: "Status",
      message: "too old resource version",
      ...(code === undefined ? {} : { code }),
    });
    assert.strictEqual(error.reason, reason);
    assert.strictEqual(error.message, "too old resource version");
  });

  it("recognises Status objects", () => {
    assert.isTrue(KubeApiError.isStatusBody({ kind: "Status", code: 410 }));
    assert.isFalse(KubeApiError.isStatusBody({ kind: "Pod" }));
    assert.isFalse(KubeApiError.isStatusBody(null));
    assert.isFalse(KubeApiError.isStatusBody([{ kind: "Status" }]));
  });
});

describe("constructors without a response", () => {
  it("transport and timeout errors have no status", () => {
    const cause = new Error("ECONNREFUSED");
    const transport = KubeApiError.transport("connection refused", cause);
    assert.strictEqual(transport.reason, "TransportError");
    assert.isUndefined(transport.status);
    assert.strictEqual(transport.cause, cause);
    assert.strictEqual(KubeApiError.timeout("took too long").reason, "Timeout");
  });
});

describe("properties", () => {
  it("truncation never exceeds the limit and keeps short texts intact", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        const cut = truncateText(text);
        assert.isAtMost(cut.length, 256);
        if (text.length < 256) assert.strictEqual(cut, text);
        else assert.isTrue(cut.endsWith("...") && text.startsWith(cut.slice(0, -3)));
      }),
    );
  });

  it("every status ≥ 400 maps to a reason, every lower one to none", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 999 }), (status) => {
        const error = KubeApiError.fromResponse({ status, headers: {}, body: "" });
        assert.strictEqual(error === undefined, status < 400);
      }),
    );
  });
});

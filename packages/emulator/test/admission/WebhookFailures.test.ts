// Covers the wording of failed webhook calls, as kube-apiserver v1.34 answered on the real tier:
// error statuses (a webhook's own Status, client-go's generic texts per code, textual and other
// bodies), certificate name mismatches (Go's x509.HostnameError) and connection failures.
import { assert, describe, it } from "@effect/vitest";
import * as WebhookFailures from "../../src/admission/WebhookFailures.ts";

const status = (message: string) =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message });

describe("WebhookFailures.httpError", () => {
  it.each([
    [
      "a 500 with text",
      500,
      "text/plain",
      " boom\n",
      'an error on the server ("boom") has prevented the request from succeeding',
    ],
    [
      "a 502 with JSON that is no Status",
      502,
      "application/json",
      '{"error":"x"}',
      'an error on the server ("unknown") has prevented the request from succeeding',
    ],
    ["a 404 with a failed Status", 404, "application/json", status("nope"), "nope"],
    ["a Status without a content type", 500, undefined, status("from status"), "from status"],
    [
      "a Status with a text content type",
      500,
      "text/plain",
      status("s"),
      `an error on the server (${JSON.stringify(status("s"))}) has prevented the request from succeeding`,
    ],
    [
      "a successful Status is not an error message",
      400,
      "application/json",
      JSON.stringify({ kind: "Status", status: "Success" }),
      "the server rejected our request for an unknown reason",
    ],
    ["a 404 with text", 404, "text/plain", "x", "the server could not find the requested resource"],
    ["a 403 keeps the server's text", 403, "text/plain", "forbidden: no", "forbidden: no"],
    ["a 403 with JSON", 403, "application/json", "{}", "unknown"],
    [
      "a 406 without a message",
      406,
      "application/json",
      "{}",
      "the server was unable to respond with a content type that the client supports",
    ],
    ["a 503", 503, "text/plain", "x", "the server is currently unable to handle the request"],
    [
      "a 504",
      504,
      "text/plain",
      "x",
      "the server was unable to return a response in the time allotted, but may still be processing the request",
    ],
    [
      "a 418",
      418,
      "text/plain",
      "teapot",
      "the server responded with the status code 418 but did not return more information",
    ],
    [
      "a 302",
      302,
      "text/html",
      "",
      "the server responded with the status code 302 but did not return more information",
    ],
  ] as const)("%s", (_, code, contentType, body, expected) => {
    assert.strictEqual(WebhookFailures.httpError(code, contentType, body), expected);
  });

  it("keeps at most 2048 bytes of a textual body", () => {
    const message = WebhookFailures.httpError(500, "text/plain", "a".repeat(5000));
    assert.strictEqual(
      message,
      `an error on the server ("${"a".repeat(2048)}") has prevented the request from succeeding`,
    );
  });
});

describe("WebhookFailures.hostnameError", () => {
  it.each([
    [
      "a DNS host against DNS names",
      "localhost",
      "DNS:127.0.0.1, IP Address:127.0.0.1",
      false,
      "x509: certificate is valid for 127.0.0.1, not localhost",
    ],
    [
      "an IP host against IP names",
      "10.0.0.1",
      "DNS:a.example, IP Address:127.0.0.1, IP Address:::1",
      true,
      "x509: certificate is valid for 127.0.0.1, ::1, not 10.0.0.1",
    ],
    [
      "an IP host without IP names",
      "10.0.0.1",
      "DNS:a.example",
      true,
      "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs",
    ],
    [
      "a DNS host without DNS names",
      "b.example",
      "IP Address:127.0.0.1",
      false,
      "x509: certificate is not valid for any names, but wanted to match b.example",
    ],
    [
      "no names at all",
      "b.example",
      undefined,
      false,
      "x509: certificate is not valid for any names, but wanted to match b.example",
    ],
  ] as const)("%s", (_, host, names, isIp, expected) => {
    assert.strictEqual(WebhookFailures.hostnameError(host, names, isIp), expected);
  });
});

describe("WebhookFailures.connectionError", () => {
  const url = new URL("https://127.0.0.1:9443/hook");
  it.each([
    ["ECONNREFUSED", "dial tcp 127.0.0.1:9443: connect: connection refused"],
    ["ECONNRESET", "EOF"],
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "tls: failed to verify certificate: x509: certificate signed by unknown authority",
    ],
    [
      "CERT_HAS_EXPIRED",
      "tls: failed to verify certificate: x509: certificate has expired or is not yet valid",
    ],
    ["EWHATEVER", "something else"],
  ] as const)("%s", (code, expected) => {
    assert.strictEqual(WebhookFailures.connectionError({ code, message: "something else" }, url), expected);
  });

  it("names the valid names of a mismatched certificate", () => {
    const error = {
      code: "ERR_TLS_CERT_ALTNAME_INVALID",
      message: "",
      cert: { subjectaltname: "DNS:127.0.0.1, IP Address:127.0.0.1" },
    };
    assert.strictEqual(
      WebhookFailures.connectionError(error, new URL("https://localhost:9443/hook")),
      "tls: failed to verify certificate: x509: certificate is valid for 127.0.0.1, not localhost",
    );
    assert.strictEqual(
      WebhookFailures.connectionError({ ...error, cert: { subjectaltname: "DNS:localhost" } }, url),
      "tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs",
    );
  });
});

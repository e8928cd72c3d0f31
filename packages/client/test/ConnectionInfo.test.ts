// Covers ConnectionInfo (docs/behaviour/operator.md#logins): the path/data exclusivity and server validation, the
// Authorization header rules, PEM-or-base64 data decoding, equality, expiration and pool keys.
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import fc from "fast-check";
import * as ConnectionInfo from "../src/ConnectionInfo.ts";

const base = { server: "https://127.0.0.1:6443" };
const ok = (input: ConnectionInfo.ConnectionInfoInput) => Result.getOrThrow(ConnectionInfo.make(input));
const PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";

describe("make", () => {
  it("fills in the defaults", () => {
    const info = ok(base);
    assert.strictEqual(info.priority, 0);
    assert.strictEqual(info.trustEnv, false);
  });

  it.each([
    [{ caPath: "/ca.pem", caData: PEM }, "Both CA path & data are set. Need only one."],
    [
      { certificatePath: "/c.pem", certificateData: PEM },
      "Both certificate path & data are set. Need only one.",
    ],
    [
      { privateKeyPath: "/k.pem", privateKeyData: PEM },
      "Both private key path & data are set. Need only one.",
    ],
  ])("rejects both path and data: %j", (fields, message) => {
    const result = ConnectionInfo.make({ ...base, ...fields });
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) {
      assert.strictEqual(result.failure.reason, "ConflictingFields");
      assert.strictEqual(result.failure.message, message);
    }
  });

  it.each(["", "localhost:6443", "ftp://host", "https://", "kubernetes.default.svc"])(
    "rejects the server %j",
    (server) => {
      const result = ConnectionInfo.make({ server });
      assert.isTrue(Result.isFailure(result) && result.failure.reason === "InvalidServer");
    },
  );

  it.each(["http://127.0.0.1:8080", "https://kubernetes.default.svc", "https://[::1]:6443/prefix"])(
    "accepts the server %j",
    (server) => {
      assert.isTrue(Result.isSuccess(ConnectionInfo.make({ server })));
    },
  );
});

describe("authorization", () => {
  it.each([
    [{ scheme: "Digest", token: "xyz" }, "Digest xyz"],
    [{ scheme: "Negotiate" }, "Negotiate"],
    [{ token: "xyz" }, "Bearer xyz"],
    [{ username: "user", password: "pass" }, "Basic dXNlcjpwYXNz"],
    [{ username: "user" }, undefined],
    [{ password: "pass" }, undefined],
    [{ token: "xyz", username: "user", password: "pass" }, "Bearer xyz"],
    [{}, undefined],
  ] as const)("%j ⇒ %s", (fields, expected) => {
    assert.strictEqual(ConnectionInfo.authorization(ok({ ...base, ...fields })), expected);
  });
});

describe("decodePem", () => {
  it("keeps PEM text as is", () => {
    assert.strictEqual(Result.getOrThrow(ConnectionInfo.decodePem(PEM)), PEM);
  });

  it("decodes base64-encoded PEM (also with line breaks)", () => {
    const encoded = Buffer.from(PEM).toString("base64");
    assert.strictEqual(Result.getOrThrow(ConnectionInfo.decodePem(encoded)), PEM);
    const wrapped = encoded.replace(/(.{20})/g, "$1\n");
    assert.strictEqual(Result.getOrThrow(ConnectionInfo.decodePem(wrapped)), PEM);
  });

  it.each(["not base64 at all!", Buffer.from("plain text").toString("base64")])("rejects %j", (data) => {
    const result = ConnectionInfo.decodePem(data, "certificate-authority-data");
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) assert.match(result.failure.message, /certificate-authority-data/);
  });
});

describe("equality, expiration, transport keys", () => {
  it("equals compares every field", () => {
    assert.isTrue(ConnectionInfo.equals(ok({ ...base, token: "a" }), ok({ ...base, token: "a" })));
    assert.isFalse(ConnectionInfo.equals(ok({ ...base, token: "a" }), ok({ ...base, token: "b" })));
    assert.isFalse(
      ConnectionInfo.equals(ok({ ...base, token: "a" }), ok({ ...base, token: "a", priority: 1 })),
    );
    assert.isTrue(ConnectionInfo.equals(ok({ ...base, token: undefined }), ok(base)));
  });

  it("sameIdentity ignores the expiration only", () => {
    assert.isTrue(
      ConnectionInfo.sameIdentity(
        ok({ ...base, token: "a", expiration: 1 }),
        ok({ ...base, token: "a", expiration: 2 }),
      ),
    );
    assert.isFalse(ConnectionInfo.sameIdentity(ok({ ...base, token: "a" }), ok({ ...base, token: "b" })));
    assert.isFalse(
      ConnectionInfo.equals(
        ok({ ...base, token: "a", expiration: 1 }),
        ok({ ...base, token: "a", expiration: 2 }),
      ),
    );
  });

  it("expires at the expiration instant, never without one", () => {
    const info = ok({ ...base, expiration: 1000 });
    assert.isFalse(ConnectionInfo.isExpired(info, 999));
    assert.isTrue(ConnectionInfo.isExpired(info, 1000));
    assert.isFalse(ConnectionInfo.isExpired(ok(base), Number.MAX_SAFE_INTEGER));
  });

  it("tokens do not change the transport key, TLS material does", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        assert.strictEqual(
          ConnectionInfo.transportKey(ok({ ...base, token: a })),
          ConnectionInfo.transportKey(ok({ ...base, token: b })),
        );
      }),
    );
    assert.notStrictEqual(
      ConnectionInfo.transportKey(ok(base)),
      ConnectionInfo.transportKey(ok({ ...base, insecure: true })),
    );
  });

  it("describe never includes secrets", () => {
    const text = ConnectionInfo.describe(ok({ ...base, token: "s3cr3t", username: "u", password: "p4ss" }));
    assert.notInclude(text, "s3cr3t");
    assert.notInclude(text, "p4ss");
  });
});

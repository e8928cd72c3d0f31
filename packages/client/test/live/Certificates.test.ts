/**
 * The shared certificate code: a self-signed certificate carries exactly the names it is given
 * and the validity asked for, and `sign` refuses an unusable request with a CertificateError
 * instead of throwing.
 */
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import { Certificates } from "../../src/index.ts";

describe("Certificates", () => {
  it.live("selfSigned covers exactly the given names, as its own CA", () =>
    Effect.gen(function* () {
      const made = yield* Certificates.selfSigned(
        { commonName: "svc.example", dnsNames: ["svc.example", "10.1.2.3"], ipAddresses: ["10.1.2.3"] },
        { days: 30 },
      );
      const cert = new X509Certificate(made.certPem);
      assert.isTrue(cert.ca);
      assert.isTrue(cert.checkIssued(cert));
      assert.strictEqual(cert.subject, "CN=svc.example");
      assert.deepStrictEqual(cert.subjectAltName?.split(", ").sort(), [
        "DNS:10.1.2.3",
        "DNS:svc.example",
        "IP Address:10.1.2.3",
      ]);
      assert.isUndefined(cert.checkHost("other.example"));
      assert.isTrue(Math.abs(Date.parse(cert.validTo) - Date.now() - 30 * 86400_000) < 3600_000);
      assert.strictEqual(made.notAfter, Date.parse(cert.validTo));
      assert.match(made.keyPem, /^-----BEGIN PRIVATE KEY-----/);
    }),
  );

  it.live("sign fails with a CertificateError when the issuer's key cannot sign SHA-256 with RSA", () =>
    Effect.gen(function* () {
      const keys = yield* Certificates.generateKeys;
      const subject = [{ name: "commonName", value: "broken" }];
      const failure = yield* Effect.flip(
        Certificates.sign({
          subject,
          publicKey: keys.publicKey,
          extensions: [],
          notBefore: new Date(0),
          notAfter: new Date(86400_000),
          issuer: subject,
          issuerKey: generateKeyPairSync("ed25519").privateKey,
        }),
      );
      assert.strictEqual(failure._tag, "CertificateError");
      assert.strictEqual(failure.reason, "Signing");
    }),
  );
});

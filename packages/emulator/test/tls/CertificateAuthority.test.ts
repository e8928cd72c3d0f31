// Covers the emulator's certificate authority: the CA certificate, serving certificates (default
// and extra SANs, invalid names rejected) accepted by a real TLS handshake, and client
// certificates carrying the user (CN) and groups (O); a CA restored from its certificate and key
// issues certificates that the original CA's clients trust, and bad material is refused.
import { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { connect, createServer } from "node:tls";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as CertificateAuthority from "../../src/tls/CertificateAuthority.ts";

const handshake = (serving: CertificateAuthority.KeyPair, caPem: string, servername: string, host: string) =>
  Effect.callback<boolean>((resume) => {
    const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (socket) => socket.end());
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const socket = connect(
        { host, port, ca: caPem, ...(isIP(servername) === 0 ? { servername } : {}) },
        () => {
          const authorized = socket.authorized;
          socket.destroy();
          server.close();
          resume(Effect.succeed(authorized));
        },
      );
      socket.on("error", () => {
        socket.destroy();
        server.close();
        resume(Effect.succeed(false));
      });
    });
  });

describe("CertificateAuthority", () => {
  it.effect("makes a self-signed CA certificate", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make({ commonName: "test-ca" });
      const cert = new X509Certificate(ca.certPem);
      assert.isTrue(cert.ca);
      assert.include(cert.subject, "CN=test-ca");
      assert.isTrue(cert.checkIssued(cert));
    }),
  );

  it.effect("names every generated CA differently", () =>
    Effect.gen(function* () {
      const a = new X509Certificate((yield* CertificateAuthority.make()).certPem);
      const b = new X509Certificate((yield* CertificateAuthority.make()).certPem);
      assert.match(a.subject, /CN=kopf-emulator-ca-[0-9a-f]{8}/);
      assert.notStrictEqual(a.subject, b.subject);
    }),
  );

  it.effect("issues serving certificates for the loopback names and extra SANs", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const serving = yield* ca.issueServing(["emulator.test", "10.1.2.3"]);
      const cert = new X509Certificate(serving.certPem);
      const sans = cert.subjectAltName ?? "";
      for (const expected of [
        "IP Address:127.0.0.1",
        "DNS:localhost",
        "DNS:emulator.test",
        "IP Address:10.1.2.3",
      ]) {
        assert.include(sans, expected);
      }
      assert.match(sans, /IP Address:(0:0:0:0:0:0:0:1|::1)/);
      assert.isFalse(cert.ca);
      assert.isTrue(cert.checkIssued(new X509Certificate(ca.certPem)));
      assert.isTrue(cert.verify(new X509Certificate(ca.certPem).publicKey));
    }),
  );

  it.effect.each<readonly [string, string]>([
    ["127.0.0.1", "127.0.0.1"],
    ["localhost", "127.0.0.1"],
  ])("a TLS client trusting only the CA verifies the server as %s", ([servername, host]) =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const serving = yield* ca.issueServing();
      assert.isTrue(yield* handshake(serving, ca.certPem, servername, host));
    }),
  );

  it.effect("a TLS client trusting another CA rejects the server", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const other = yield* CertificateAuthority.make();
      const serving = yield* ca.issueServing();
      assert.isFalse(yield* handshake(serving, other.certPem, "localhost", "127.0.0.1"));
    }),
  );

  it.effect.each(["bad name", "-leading.dash", "", "a..b"])("rejects the serving name %j", (name) =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const exit = yield* Effect.exit(ca.issueServing([name]));
      assert.isTrue(Exit.isFailure(exit));
      const error = yield* Effect.flip(ca.issueServing([name]));
      assert.strictEqual(error.reason, "InvalidName");
      assert.include(error.message, JSON.stringify(name));
    }),
  );

  it.effect("issues client certificates with the user as CN and groups as O", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const client = yield* ca.issueClient({ username: "alice", groups: ["system:masters", "devs"] });
      const cert = new X509Certificate(client.certPem);
      assert.include(cert.subject, "CN=alice");
      assert.include(cert.subject, "O=system:masters");
      assert.include(cert.subject, "O=devs");
      assert.isTrue(cert.checkIssued(new X509Certificate(ca.certPem)));
      assert.deepStrictEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.2"]);
    }),
  );

  it.effect("refuses a client certificate without a user name", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const error = yield* Effect.flip(ca.issueClient({ username: "" }));
      assert.strictEqual(error.reason, "InvalidName");
    }),
  );

  it.live("restores a CA from its certificate and key: what it issues verifies against the original", () =>
    Effect.gen(function* () {
      const original = yield* CertificateAuthority.make({ commonName: "kept-ca" });
      const restored = yield* CertificateAuthority.restore({
        certPem: original.certPem,
        keyPem: original.keyPem,
      });
      assert.strictEqual(restored.certPem, original.certPem);
      const serving = yield* restored.issueServing();
      assert.isTrue(yield* handshake(serving, original.certPem, "localhost", "127.0.0.1"));
      const client = new X509Certificate((yield* restored.issueClient({ username: "alice" })).certPem);
      assert.isTrue(client.verify(new X509Certificate(original.certPem).publicKey));
      assert.include(client.issuer, "CN=kept-ca");
    }),
  );

  it.effect("refuses material that is not a CA with its own key", () =>
    Effect.gen(function* () {
      const one = yield* CertificateAuthority.make();
      const two = yield* CertificateAuthority.make();
      const leaf = yield* one.issueServing();
      for (const [material, message] of [
        [{ certPem: one.certPem, keyPem: two.keyPem }, "does not belong"],
        [{ certPem: leaf.certPem, keyPem: leaf.keyPem }, "not a CA"],
        [{ certPem: "garbage", keyPem: one.keyPem }, "cannot restore"],
      ] as const) {
        const error = yield* Effect.flip(CertificateAuthority.restore(material));
        assert.strictEqual(error.reason, "InvalidMaterial");
        assert.include(error.message, message);
      }
    }),
  );

  it.effect("reuses a serving certificate only for the names it covers", () =>
    Effect.gen(function* () {
      const ca = yield* CertificateAuthority.make();
      const serving = yield* ca.issueServing(["emulator.local"]);
      assert.isTrue(CertificateAuthority.covers(serving, ["127.0.0.1", "emulator.local"]));
      assert.isFalse(CertificateAuthority.covers(serving, ["other.local"]));
    }),
  );
});

/**
 * Self-signed serving certificates of @kopf/admission's webhook servers (Kopf's `build_certificate`,
 * docs/behaviour/admission.md#servers-and-tunnels): an RSA 2048 key and one certificate that is its own CA (basic constraints CA=true; key
 * usages digital signature, key encipherment, certificate and CRL signing; extended usages
 * server and client authentication) for the server's host names and IPs. The API server trusts
 * it through the client config's `caBundle` (the certificate itself).
 *
 * Keys and signatures come from Node's native crypto (fast, off the event loop for key
 * generation); node-forge only lays out the X.509 structure. No openssl binary is involved.
 * {@link generateKeys} and {@link sign} are also the emulator's certificate authority's; the code
 * lives here, below both, so neither depends on the other.
 * node-forge (~40 modules) is imported on the first certificate, so an operator that serves no
 * webhooks loads none of it.
 * The validity starts an hour before now (clock skew) and lasts `days` (default 365); the
 * servers issue a new certificate before it expires.
 */
import {
  createPrivateKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  sign as signBytes,
} from "node:crypto";
import * as Clock from "effect/Clock";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import type forge from "node-forge";

/** The names of a self-signed serving certificate. */
export interface CertificateNames {
  readonly commonName: string;
  /** SAN DNS names: the host names and the IP strings (as Kopf puts both). */
  readonly dnsNames: ReadonlyArray<string>;
  /** SAN IP addresses. */
  readonly ipAddresses: ReadonlyArray<string>;
}

/** A PEM certificate with its PEM (PKCS#8) private key and its validity end. */
export interface SelfSigned {
  readonly certPem: string;
  readonly keyPem: string;
  /** The end of the validity, epoch milliseconds. */
  readonly notAfter: number;
}

/** Why a certificate could not be made. */
export class CertificateError extends Data.TaggedError("CertificateError")<{
  readonly reason: "KeyGeneration" | "Signing";
  readonly message: string;
}> {}

/** node-forge, imported once on first use. */
const forgeModule: Effect.Effect<typeof forge> = Effect.promise(() =>
  import("node-forge").then((module) => module.default),
);

/** A fresh RSA key pair: the PEM private key, Node's key object (to sign), forge's public key (to lay out). */
export interface KeyMaterial {
  readonly keyPem: string;
  readonly privateKey: KeyObject;
  readonly publicKey: forge.pki.rsa.PublicKey;
}

/**
 * A 2048-bit RSA key pair, generated off the event loop (libuv's thread pool).
 *
 * @example
 * const keys = yield* Certificates.generateKeys
 */
export const generateKeys: Effect.Effect<KeyMaterial, CertificateError> = Effect.flatMap(
  forgeModule,
  (forge) =>
    Effect.callback<KeyMaterial, CertificateError>((resume) => {
      generateKeyPair(
        "rsa",
        {
          modulusLength: 2048,
          publicKeyEncoding: { type: "spki", format: "pem" },
          privateKeyEncoding: { type: "pkcs8", format: "pem" },
        },
        (error, publicKey, privateKey) => {
          const keys =
            error === null
              ? Result.try({
                  try: () => ({
                    keyPem: privateKey,
                    privateKey: createPrivateKey(privateKey),
                    publicKey: forge.pki.publicKeyFromPem(publicKey) as forge.pki.rsa.PublicKey,
                  }),
                  catch: (cause) => String(cause),
                })
              : Result.fail(String(error));
          resume(
            Result.isSuccess(keys)
              ? Effect.succeed(keys.success)
              : Effect.fail(
                  new CertificateError({
                    reason: "KeyGeneration",
                    message: `Cannot generate an RSA key: ${keys.failure}`,
                  }),
                ),
          );
        },
      );
    }),
);

/** A positive serial number of 16 random bytes (RFC 5280 allows up to 20 octets). */
const serialNumber = (): string => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString("hex");
};

/** What to sign: the subject, its public key, the extensions, the validity, and the issuer. */
export interface SignRequest {
  readonly subject: ReadonlyArray<forge.pki.CertificateField>;
  readonly publicKey: forge.pki.rsa.PublicKey;
  /** forge extension objects; a subject key identifier is always added. */
  readonly extensions: ReadonlyArray<object>;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly issuer: ReadonlyArray<forge.pki.CertificateField>;
  readonly issuerKey: KeyObject;
}

/**
 * Lays out an X.509 certificate with node-forge and signs it (SHA-256 with RSA) with Node's
 * native crypto — forge's own RSA would take a quarter second per signature.
 *
 * @example
 * const certPem = yield* Certificates.sign({ subject, publicKey, extensions, notBefore, notAfter, issuer: subject, issuerKey })
 */
export const sign = (request: SignRequest): Effect.Effect<string, CertificateError> =>
  Effect.flatMap(forgeModule, (forge) =>
    Effect.try({
      try: () => {
        const cert = forge.pki.createCertificate();
        cert.publicKey = request.publicKey;
        cert.serialNumber = serialNumber();
        cert.validity.notBefore = request.notBefore;
        cert.validity.notAfter = request.notAfter;
        cert.setSubject([...request.subject]);
        cert.setIssuer([...request.issuer]);
        cert.setExtensions([...request.extensions, { name: "subjectKeyIdentifier" }]);
        const algorithm = forge.pki.oids.sha256WithRSAEncryption as string;
        cert.signatureOid = algorithm;
        cert.siginfo.algorithmOid = algorithm;
        // getTBSCertificate exists in forge 1.4.3 but is missing from its type definitions.
        const pki = forge.pki as unknown as {
          getTBSCertificate: (c: forge.pki.Certificate) => forge.asn1.Asn1;
        };
        const tbs = pki.getTBSCertificate(cert);
        (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
        const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary");
        cert.signature = signBytes("sha256", der, request.issuerKey).toString("binary");
        return forge.pki.certificateToPem(cert);
      },
      catch: (cause) =>
        new CertificateError({ reason: "Signing", message: `Cannot sign a certificate: ${String(cause)}` }),
    }),
  );

const DAY = 24 * 60 * 60 * 1000;

/**
 * Generates a self-signed CA-and-server certificate for the given names.
 *
 * @example
 * ```ts
 * const names = Endpoint.certificateNames({ host: "host.k3d.internal" })
 * const { certPem, keyPem } = yield* Certificates.selfSigned(names)
 * ```
 */
export const selfSigned = (
  names: CertificateNames,
  options: { readonly days?: number } = {},
): Effect.Effect<SelfSigned, CertificateError> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis;
    const keys = yield* generateKeys;
    // Certificates keep whole seconds.
    const notBefore = Math.floor((now - 60 * 60 * 1000) / 1000) * 1000;
    const notAfter = Math.floor((now + (options.days ?? 365) * DAY) / 1000) * 1000;
    const subject = [{ name: "commonName", value: names.commonName }];
    const certPem = yield* sign({
      subject,
      issuer: subject,
      issuerKey: keys.privateKey,
      publicKey: keys.publicKey,
      notBefore: new Date(notBefore),
      notAfter: new Date(notAfter),
      extensions: [
        { name: "basicConstraints", cA: true, critical: true },
        {
          name: "keyUsage",
          digitalSignature: true,
          keyEncipherment: true,
          keyCertSign: true,
          cRLSign: true,
          critical: true,
        },
        { name: "extKeyUsage", serverAuth: true, clientAuth: true },
        {
          name: "subjectAltName",
          altNames: [
            ...names.dnsNames.map((value) => ({ type: 2, value })),
            ...names.ipAddresses.map((ip) => ({ type: 7, ip })),
          ],
        },
      ],
    });
    return { certPem, keyPem: keys.keyPem, notAfter };
  });

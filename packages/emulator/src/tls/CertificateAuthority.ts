/**
 * The emulator's own certificate authority: generated at the first start (and restored from the
 * emulator's state file at later ones, so clients keep trusting it), it signs the serving certificate
 * of the HTTPS server (127.0.0.1, ::1, localhost and any extra names) and client certificates for
 * tests that authenticate with a certificate instead of a token (user = CN, groups = O, as a real
 * API server reads them).
 *
 * Keys and signatures come from the certificate code shared with the webhook servers
 * (`Certificates` of @kopf/client, shared with @kopf/admission's webhook servers: Node's native crypto signs, node-forge lays out).
 * Certificates are checked by real TLS clients against the wall clock, while the emulator's own
 * time may be a `TestClock` at 1970; so the validity window is a fixed, wide one (2000–2099) that
 * depends on neither clock.
 */
import { createPrivateKey, type KeyObject, randomBytes, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { Certificates } from "@kopf/client";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import forge from "node-forge";

/** A PEM certificate with its PEM private key. */
export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A serving certificate with its key and the names it was issued for. */
export interface ServingPair extends KeyPair {
  readonly names: ReadonlyArray<string>;
}

/** What a server needs to serve with the same identity after a restart. */
export interface TlsMaterial {
  readonly ca: KeyPair;
  readonly serving: ServingPair;
}

/** What a client certificate asserts: the user name (CN) and groups (O). */
export interface ClientIdentity {
  readonly username: string;
  readonly groups?: ReadonlyArray<string>;
}

/** Why a certificate operation failed. */
export class TlsError extends Data.TaggedError("TlsError")<{
  readonly reason: "KeyGeneration" | "Signing" | "InvalidName" | "InvalidMaterial";
  readonly message: string;
}> {}

/**
 * A certificate authority able to issue serving and client certificates.
 *
 * @example
 * ```ts
 * const ca = yield* CertificateAuthority.make();
 * const serving = yield* ca.issueServing(["my-host.local"]);
 * https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem });
 * ```
 */
export interface CertificateAuthority {
  /** The CA certificate (what a kubeconfig's `certificate-authority-data` carries). */
  readonly certPem: string;
  /** The CA's private key (PEM): kept with the certificate to restore the CA with {@link restore}. */
  readonly keyPem: string;
  /** Issues a serving certificate for 127.0.0.1, ::1, localhost and the given extra names/IPs. */
  readonly issueServing: (extraNames?: ReadonlyArray<string>) => Effect.Effect<ServingPair, TlsError>;
  /** Issues a client certificate for the given user and groups. */
  readonly issueClient: (identity: ClientIdentity) => Effect.Effect<KeyPair, TlsError>;
}

const NOT_BEFORE = new Date(Date.UTC(2000, 0, 1));
const NOT_AFTER = new Date(Date.UTC(2099, 11, 31, 23, 59, 59));

/** The names every serving certificate covers. */
export const defaultServingNames: ReadonlyArray<string> = ["127.0.0.1", "::1", "localhost"];

/**
 * Whether a serving certificate was issued for (at least) these names and the default ones.
 *
 * @example
 * ```ts
 * CertificateAuthority.covers(saved.serving, ["127.0.0.1"]); // true: reuse it
 * ```
 */
export const covers = (serving: ServingPair, names: ReadonlyArray<string>): boolean =>
  [...defaultServingNames, ...names].every((name) => serving.names.includes(name));

/** Key generation of the shared certificate code (in @kopf/client), failing with a TlsError. */
const generateKeys = Certificates.generateKeys.pipe(
  Effect.mapError((error) => new TlsError({ reason: "KeyGeneration", message: error.message })),
);

/** Splits names into subjectAltName entries: IP addresses (type 7) and DNS names (type 2). */
const altNames = (
  names: ReadonlyArray<string>,
): ReadonlyArray<{ type: number; value?: string; ip?: string }> =>
  names.map((name) => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name }));

const isValidName = (name: string): boolean =>
  isIP(name) !== 0 || /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(name);

interface SignRequest {
  readonly subject: ReadonlyArray<forge.pki.CertificateField>;
  readonly extensions: ReadonlyArray<object>;
  readonly publicKey: forge.pki.rsa.PublicKey;
}

/** Signs with the shared certificate code, over the fixed validity window. */
const sign = (
  issuer: ReadonlyArray<forge.pki.CertificateField>,
  issuerKey: KeyObject,
  request: SignRequest,
): Effect.Effect<string, TlsError> =>
  Certificates.sign({ ...request, issuer, issuerKey, notBefore: NOT_BEFORE, notAfter: NOT_AFTER }).pipe(
    Effect.mapError((error) => new TlsError({ reason: "Signing", message: error.message })),
  );

/**
 * Generates a new certificate authority (a 2048-bit RSA key and a self-signed CA certificate).
 *
 * @example
 * ```ts
 * const ca = yield* CertificateAuthority.make({ commonName: "my-emulator-ca" });
 * ```
 */
export const make = Effect.fnUntraced(function* (options?: { readonly commonName?: string }) {
  const keys = yield* generateKeys;
  const subject: ReadonlyArray<forge.pki.CertificateField> = [
    // A distinct name per CA, so a client trusting another emulator's CA fails with "unknown
    // authority" rather than a signature mismatch between two same-named issuers.
    {
      name: "commonName",
      value: options?.commonName ?? `kopf-emulator-ca-${randomBytes(4).toString("hex")}`,
    },
    { name: "organizationName", value: "kopf" },
  ];
  const certPem = yield* sign(subject, keys.privateKey, {
    subject,
    publicKey: keys.publicKey,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return authority(subject, keys.privateKey, { certPem, keyPem: keys.keyPem });
});

/**
 * Restores a certificate authority from its certificate and private key (as {@link make} gave
 * them): certificates issued before, by this process or an earlier one, stay valid.
 *
 * @example
 * ```ts
 * const ca = yield* CertificateAuthority.restore({ certPem: saved.certPem, keyPem: saved.keyPem });
 * ```
 */
export const restore = (material: KeyPair): Effect.Effect<CertificateAuthority, TlsError> =>
  Effect.try({
    try: () => {
      const x509 = new X509Certificate(material.certPem);
      const privateKey = createPrivateKey(material.keyPem);
      if (!x509.ca) throw new Error("the certificate is not a CA certificate");
      if (!x509.checkPrivateKey(privateKey))
        throw new Error("the private key does not belong to the certificate");
      const subject = forge.pki
        .certificateFromPem(material.certPem)
        .subject.attributes.map(
          (field) => ({ type: field.type, value: field.value }) as forge.pki.CertificateField,
        );
      return authority(subject, privateKey, material);
    },
    catch: (cause) =>
      new TlsError({
        reason: "InvalidMaterial",
        message: `cannot restore the certificate authority: ${cause instanceof Error ? cause.message : String(cause)}`,
      }),
  });

/** The operations of a CA with the given subject and key. */
const authority = (
  subject: ReadonlyArray<forge.pki.CertificateField>,
  privateKey: KeyObject,
  material: KeyPair,
): CertificateAuthority => {
  const issueServing = Effect.fnUntraced(function* (extraNames: ReadonlyArray<string> = []) {
    const invalid = extraNames.filter((name) => !isValidName(name));
    if (invalid.length > 0) {
      return yield* new TlsError({
        reason: "InvalidName",
        message: `not a DNS name or IP address: ${invalid.map((name) => JSON.stringify(name)).join(", ")}`,
      });
    }
    const names = [...new Set([...defaultServingNames, ...extraNames])];
    const leaf = yield* generateKeys;
    const cert = yield* sign(subject, privateKey, {
      subject: [{ name: "commonName", value: "kopf-emulator" }],
      publicKey: leaf.publicKey,
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: altNames(names) },
      ],
    });
    return { certPem: cert, keyPem: leaf.keyPem, names } satisfies ServingPair;
  });

  const issueClient = Effect.fnUntraced(function* (identity: ClientIdentity) {
    if (identity.username.length === 0) {
      return yield* new TlsError({
        reason: "InvalidName",
        message: "a client certificate needs a non-empty user name",
      });
    }
    const leaf = yield* generateKeys;
    const cert = yield* sign(subject, privateKey, {
      subject: [
        { name: "commonName", value: identity.username },
        ...(identity.groups ?? []).map((group) => ({ name: "organizationName", value: group })),
      ],
      publicKey: leaf.publicKey,
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", clientAuth: true },
      ],
    });
    return { certPem: cert, keyPem: leaf.keyPem } satisfies KeyPair;
  });

  return { certPem: material.certPem, keyPem: material.keyPem, issueServing, issueClient };
};

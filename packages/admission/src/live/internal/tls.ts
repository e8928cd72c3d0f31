/**
 * The TLS material of a webhook server: the given certificate, key and CA files (read again on
 * every call, so changed files are noticed), or a fresh self-signed certificate for the server's
 * names; the CAs for verifying client certificates; and the Node secure-context options they make.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SecureContextOptions } from "node:tls";
import { Certificates } from "@kopf/client";
import * as Effect from "effect/Effect";
import * as Endpoint from "../../Endpoint.ts";
import { WebhookServerError } from "../../WebhookServerProtocol.ts";
import type { WebhookServerOptions } from "../WebhookServer.ts";

/** What a server serves with. */
export interface Tls {
  readonly cert: string;
  readonly key: string;
  readonly caBundle: string;
  readonly verifyCa: string | undefined;
  /** Renew (self-signed) after this instant, epoch ms. */
  readonly renewAfter: number | undefined;
}

const DAY = 24 * 60 * 60 * 1000;

const read = (path: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) =>
      new WebhookServerError({ reason: "Files", message: `Cannot read ${path}: ${String(cause)}`, cause }),
  });

/** The PEM certificates among the files of a directory. */
const readDirectory = (path: string) =>
  Effect.tryPromise({
    try: async () => {
      const names = (await readdir(path, { withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => e.name);
      const texts = await Promise.all(names.sort().map((name) => readFile(join(path, name), "utf8")));
      return texts.filter((text) => text.includes("-----BEGIN CERTIFICATE-----"));
    },
    catch: (cause) =>
      new WebhookServerError({ reason: "Files", message: `Cannot read ${path}: ${String(cause)}`, cause }),
  });

/** Loads (or makes) the certificates and the client CAs of a server. */
export const loadTls = (
  options: WebhookServerOptions,
  host: string | undefined,
): Effect.Effect<Tls, WebhookServerError> =>
  Effect.gen(function* () {
    const verifyParts = [
      ...(options.verifyCafile === undefined ? [] : [yield* read(options.verifyCafile)]),
      ...(options.verifyCapath === undefined ? [] : yield* readDirectory(options.verifyCapath)),
      ...(options.verifyCadata === undefined ? [] : [options.verifyCadata]),
    ];
    const verifyCa = verifyParts.length === 0 ? undefined : verifyParts.join("\n");
    if (options.certfile !== undefined || options.pkeyfile !== undefined) {
      if (options.certfile === undefined || options.pkeyfile === undefined) {
        return yield* new WebhookServerError({
          reason: "Certificate",
          message: "Both certfile and pkeyfile must be given, or neither (for a self-signed certificate).",
        });
      }
      const cert = yield* read(options.certfile);
      const key = yield* read(options.pkeyfile);
      const cadata =
        options.cadata ?? (options.cafile === undefined ? undefined : yield* read(options.cafile));
      return { cert, key, caBundle: cadata ?? cert, verifyCa, renewAfter: undefined };
    }
    const names = Endpoint.certificateNames({ host, addr: options.addr, extraSans: options.extraSans });
    const made = yield* Certificates.selfSigned(names).pipe(
      Effect.mapError(
        (error) => new WebhookServerError({ reason: "Certificate", message: error.message, cause: error }),
      ),
    );
    // For a self-signed certificate, the CA bundle is the certificate itself (as in Kopf),
    // whatever cafile/cadata say.
    return {
      cert: made.certPem,
      key: made.keyPem,
      caBundle: made.certPem,
      verifyCa,
      renewAfter: made.notAfter - 30 * DAY,
    };
  });

/** The Node secure-context options of the material, with client verification per `verifyMode`. */
export const secureContext = (
  tls: Tls,
  options: WebhookServerOptions,
): SecureContextOptions & {
  requestCert: boolean;
  rejectUnauthorized: boolean;
} => {
  const mode = options.verifyMode === "none" && tls.verifyCa !== undefined ? "optional" : options.verifyMode;
  return {
    cert: tls.cert,
    key: tls.key,
    ...(options.password === undefined ? {} : { passphrase: options.password }),
    ...(tls.verifyCa === undefined ? {} : { ca: tls.verifyCa }),
    requestCert: mode === "optional" || mode === "required",
    rejectUnauthorized: mode === "required",
  };
};

/** What identifies the material, to notice a change. */
export const fingerprint = (tls: Tls | undefined): string =>
  tls === undefined ? "" : `${tls.cert}\0${tls.key}\0${tls.caBundle}\0${tls.verifyCa ?? ""}`;

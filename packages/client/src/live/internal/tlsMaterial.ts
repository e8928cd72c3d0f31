/**
 * The TLS material of a connection: the certificate authority, client certificate and key of a
 * `ConnectionInfo`, read from their files or decoded from their inline data (PEM or base64 PEM),
 * with an error naming the file or field that cannot be used, and the TLS context built from them
 * once for all of a server's connections. Edge code: reads files.
 */
import { readFile } from "node:fs/promises";
import type { SecureContext } from "node:tls";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as ConnectionInfo from "../../ConnectionInfo.ts";
import { KubeApiError } from "../../KubeApiError.ts";

/** PEM texts for the TLS layer; absent fields are left to its defaults. */
interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

const readPem = (path: string, what: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf-8"),
    catch: (cause) =>
      KubeApiError.transport(
        `Cannot read the ${what} file ${path}: ${(cause as Error).message ?? String(cause)}`,
        cause,
      ),
  });

const decodePem = (data: string, what: string) =>
  Effect.fromResult(
    Result.mapError(ConnectionInfo.decodePem(data, what), (error) =>
      KubeApiError.transport(error.message, error),
    ),
  );

/** The TLS material of a connection info: files are read, data decoded (data wins over a file). */
const tlsOf = (info: ConnectionInfo.ConnectionInfo): Effect.Effect<TlsMaterial, KubeApiError> =>
  Effect.gen(function* () {
    const material: { ca?: string; cert?: string; key?: string } = {};
    if (info.caPath) material.ca = yield* readPem(info.caPath, "certificate authority");
    if (info.caData) material.ca = yield* decodePem(info.caData, "certificate-authority-data");
    if (info.certificatePath) material.cert = yield* readPem(info.certificatePath, "client certificate");
    if (info.certificateData)
      material.cert = yield* decodePem(info.certificateData, "client-certificate-data");
    if (info.privateKeyPath) material.key = yield* readPem(info.privateKeyPath, "client key");
    if (info.privateKeyData) material.key = yield* decodePem(info.privateKeyData, "client-key-data");
    return material;
  });

/**
 * The TLS context of a server's connections, built once per agent from the credentials' material;
 * material that TLS cannot use (a key that does not match the certificate, a PEM that does not
 * parse) fails here with a `TransportError` naming the server, before any connection is tried.
 * (Node.js's clients build one per connection they open when given the material itself.)
 *
 * @example
 * ```ts
 * const secureContext = yield* secureContextOf({ server: "https://h", caData: pem, priority: 0, trustEnv: false })
 * const agent = new https.Agent({ keepAlive: true, secureContext })
 * ```
 */
export const secureContextOf = (
  info: ConnectionInfo.ConnectionInfo,
): Effect.Effect<SecureContext, KubeApiError> =>
  Effect.flatMap(tlsOf(info), (material) =>
    Effect.try({
      try: () => process.getBuiltinModule("node:tls").createSecureContext(material),
      catch: (cause) =>
        KubeApiError.transport(
          `The TLS material for ${info.server} cannot be used: ${(cause as Error).message ?? String(cause)}`,
          cause,
        ),
    }),
  );

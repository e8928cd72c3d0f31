/**
 * Connection info: everything needed to reach one API server as one identity (Kopf's
 * `ConnectionInfo`, docs/behaviour/operator.md#logins) — the server URL, how to verify it (CA, insecure flag, TLS
 * server name), and who we are (bearer token or another scheme, basic auth, client certificate).
 *
 * Login handlers return these; the credentials vault holds them; the transport turns them into
 * TLS options and an `Authorization` header. This module is pure: paths are kept as paths and
 * read by the live transport, data fields are decoded here.
 */
import * as Data from "effect/Data";
import { Base64 } from "effect/encoding";
import * as Result from "effect/Result";

/**
 * One endpoint with one identity. Path and data fields of the same item are mutually exclusive;
 * data fields accept PEM text or base64-encoded PEM (as kubeconfig's `*-data` fields hold).
 *
 * @category models
 */
export interface ConnectionInfo {
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  readonly caPath?: string | undefined;
  readonly caData?: string | undefined;
  /** Skip TLS verification of the server (kubeconfig's `insecure-skip-tls-verify`). */
  readonly insecure?: boolean | undefined;
  /** The name to verify the server's certificate against (kubeconfig's `tls-server-name`). */
  readonly tlsServerName?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** The `Authorization` scheme (RFC 7235), e.g. `Bearer`; with no token it is the whole header. */
  readonly scheme?: string | undefined;
  readonly token?: string | undefined;
  readonly certificatePath?: string | undefined;
  readonly certificateData?: string | undefined;
  readonly privateKeyPath?: string | undefined;
  readonly privateKeyData?: string | undefined;
  /** The namespace to use when none is given (e.g. for events of cluster-scoped objects). */
  readonly defaultNamespace?: string | undefined;
  readonly proxyUrl?: string | undefined;
  /** Honour proxy environment variables (`HTTPS_PROXY`, `NO_PROXY`, …). */
  readonly trustEnv: boolean;
  /** Higher priorities are used first; equal ones are chosen at random. */
  readonly priority: number;
  /** When these credentials stop being valid, in epoch milliseconds (UTC). */
  readonly expiration?: number | undefined;
}

/** Input of {@link make}: the same fields, with `trustEnv` and `priority` optional. @category models */
export type ConnectionInfoInput = Omit<ConnectionInfo, "trustEnv" | "priority"> & {
  readonly trustEnv?: boolean | undefined;
  readonly priority?: number | undefined;
};

/** A connection info that cannot be used as given. @category errors */
export class ConnectionInfoError extends Data.TaggedError("ConnectionInfoError")<{
  readonly reason: "ConflictingFields" | "InvalidServer" | "InvalidData";
  readonly message: string;
}> {}

const conflicts = [
  ["caPath", "caData", "Both CA path & data are set. Need only one."],
  ["certificatePath", "certificateData", "Both certificate path & data are set. Need only one."],
  ["privateKeyPath", "privateKeyData", "Both private key path & data are set. Need only one."],
] as const;

/**
 * Validate and build a connection info.
 *
 * @example
 * ```ts
 * import { ConnectionInfo } from "@kopf/client"
 * const info = ConnectionInfo.make({ server: "https://127.0.0.1:6443", token: "abc", priority: 10 })
 * // Result.isSuccess(info) === true
 * ```
 */
export const make = (input: ConnectionInfoInput): Result.Result<ConnectionInfo, ConnectionInfoError> => {
  for (const [path, data, message] of conflicts) {
    if (input[path] && input[data]) {
      return Result.fail(new ConnectionInfoError({ reason: "ConflictingFields", message }));
    }
  }
  if (!/^https?:\/\/[^/\s]+/i.test(input.server)) {
    return Result.fail(
      new ConnectionInfoError({
        reason: "InvalidServer",
        message: `The server must be an http:// or https:// URL with a host, got ${JSON.stringify(input.server)}.`,
      }),
    );
  }
  return Result.succeed({ ...input, trustEnv: input.trustEnv ?? false, priority: input.priority ?? 0 });
};

/**
 * Decode a `*-data` field: PEM text as is, anything else as base64-encoded PEM.
 *
 * @example
 * ```ts
 * decodePem("-----BEGIN CERTIFICATE-----\n...") // Result.succeed(the same text)
 * decodePem("LS0tLS1CRUdJTi...")                  // Result.succeed("-----BEGIN ...")
 * ```
 */
export const decodePem = (data: string, field = "data"): Result.Result<string, ConnectionInfoError> => {
  const trimmed = data.trim();
  if (trimmed.startsWith("-----BEGIN ")) return Result.succeed(data);
  const decoded = Base64.decodeString(trimmed.replace(/\s+/g, ""));
  if (Result.isFailure(decoded) || !decoded.success.trimStart().startsWith("-----BEGIN ")) {
    return Result.fail(
      new ConnectionInfoError({
        reason: "InvalidData",
        message: `The ${field} is neither PEM text nor base64-encoded PEM.`,
      }),
    );
  }
  return Result.succeed(decoded.success);
};

const encoder = new TextEncoder();

/**
 * The `Authorization` header for these credentials, if any: scheme and token ⇒
 * `"{scheme} {token}"`; scheme only ⇒ `"{scheme}"`; token only ⇒ `"Bearer {token}"`; otherwise
 * basic auth when both username and password are set.
 *
 * @example
 * ```ts
 * authorization({ server: "https://h", token: "t", trustEnv: false, priority: 0 }) // "Bearer t"
 * ```
 */
export const authorization = (info: ConnectionInfo): string | undefined => {
  if (info.scheme && info.token) return `${info.scheme} ${info.token}`;
  if (info.scheme) return info.scheme;
  if (info.token) return `Bearer ${info.token}`;
  if (info.username && info.password) {
    return `Basic ${Base64.encode(encoder.encode(`${info.username}:${info.password}`))}`;
  }
  return undefined;
};

const fields: ReadonlyArray<keyof ConnectionInfo> = [
  "server",
  "caPath",
  "caData",
  "insecure",
  "tlsServerName",
  "username",
  "password",
  "scheme",
  "token",
  "certificatePath",
  "certificateData",
  "privateKeyPath",
  "privateKeyData",
  "defaultNamespace",
  "proxyUrl",
  "trustEnv",
  "priority",
  "expiration",
];

/**
 * Field-by-field equality (as Kopf compares its frozen dataclasses).
 *
 * @example
 * ```ts
 * equals(a, { ...a }) // true
 * equals(a, { ...a, token: "other" }) // false
 * ```
 */
export const equals = (a: ConnectionInfo, b: ConnectionInfo): boolean =>
  fields.every((field) => (a[field] ?? undefined) === (b[field] ?? undefined));

/**
 * Equality of everything but the expiration: the same server and identity. Refreshed logins
 * (exec plugins, service accounts) give the same credentials a new expiration each time.
 *
 * @example
 * ```ts
 * sameIdentity({ ...a, expiration: 1 }, { ...a, expiration: 2 }) // true
 * ```
 */
export const sameIdentity = (a: ConnectionInfo, b: ConnectionInfo): boolean =>
  fields.every((field) => field === "expiration" || (a[field] ?? undefined) === (b[field] ?? undefined));

/**
 * Whether the credentials have expired at `nowMillis` (never, without an expiration).
 *
 * @example
 * ```ts
 * isExpired({ ...info, expiration: 1000 }, 1000) // true
 * ```
 */
export const isExpired = (info: ConnectionInfo, nowMillis: number): boolean =>
  info.expiration !== undefined && nowMillis >= info.expiration;

const transportKeys = new WeakMap<ConnectionInfo, string>();

/**
 * A key that is equal for connection infos that can share one connection pool: same server,
 * same TLS material and verification. (Headers are per request, so tokens are not part of it.)
 *
 * @example
 * ```ts
 * transportKey({ ...info, token: "a" }) === transportKey({ ...info, token: "b" }) // true
 * ```
 */
export const transportKey = (info: ConnectionInfo): string => {
  // Made once per info: it holds the TLS material's text, kilobytes to copy at every request.
  const known = transportKeys.get(info);
  if (known !== undefined) return known;
  const key = keyOf(info);
  transportKeys.set(info, key);
  return key;
};

const keyOf = (info: ConnectionInfo): string =>
  JSON.stringify([
    info.server.replace(/\/+$/, ""),
    info.caPath ?? null,
    info.caData ?? null,
    info.insecure ?? false,
    info.tlsServerName ?? null,
    info.certificatePath ?? null,
    info.certificateData ?? null,
    info.privateKeyPath ?? null,
    info.privateKeyData ?? null,
    info.proxyUrl ?? null,
    info.trustEnv,
  ]);

/**
 * A description for logs, naming the server and the kind of identity but no secrets.
 *
 * @example
 * ```ts
 * describe({ server: "https://h", token: "s3cr3t", priority: 10, trustEnv: false }) // "https://h (token, priority 10)"
 * ```
 */
export const describe = (info: ConnectionInfo): string => {
  const identity =
    info.token || info.scheme
      ? "token"
      : info.username
        ? `basic auth as ${info.username}`
        : info.certificatePath || info.certificateData
          ? "client certificate"
          : "no credentials";
  return `${info.server} (${identity}, priority ${info.priority})`;
};

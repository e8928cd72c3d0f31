/**
 * Login with the pod's service account (Kopf's `login_with_service_account`, docs/behaviour/operator.md#logins): the
 * token, namespace and CA mounted under `/var/run/secrets/kubernetes.io/serviceaccount/`, and
 * the API server from `KUBERNETES_SERVICE_HOST`/`_PORT` (else `https://kubernetes.default.svc`).
 *
 * Projected service-account tokens rotate (kubelet rewrites the file, typically hourly): every
 * login re-reads the file, and the credentials expire after `refreshInterval` seconds so that a
 * rotated token is picked up before the old one is rejected (a 401 re-reads it at once, too).
 *
 * Edge code: reads files and the environment.
 */
import { readFile, stat } from "node:fs/promises";
import { isIPv6 } from "node:net";
import { join } from "node:path";
import { OperatorSettings } from "@kopf/settings";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { LoginError } from "../LoginError.ts";

/** The standard mount point of the service-account files. */
export const DEFAULT_DIRECTORY = "/var/run/secrets/kubernetes.io/serviceaccount";

/** @category models */
export interface ServiceAccountOptions {
  /** Where `token`, `namespace` and `ca.crt` are. Default {@link DEFAULT_DIRECTORY}. */
  readonly directory?: string | undefined;
  /** The environment for `KUBERNETES_SERVICE_HOST`/`_PORT`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Vault priority. Default 20 (Kopf's service-account login). */
  readonly priority?: number | undefined;
  /** Seconds before the token file is read again. Default 60. */
  readonly refreshInterval?: number | undefined;
}

const exists = (path: string) =>
  Effect.tryPromise(() => stat(path)).pipe(
    Effect.map((info) => info.isFile()),
    Effect.orElseSucceed(() => false),
  );

/**
 * The server URL as client-go derives it in a pod.
 *
 * @example
 * ```ts
 * serverOf({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }) // "https://10.96.0.1:443"
 * serverOf({}) // "https://kubernetes.default.svc"
 * ```
 */
export const serverOf = (env: Readonly<Record<string, string | undefined>>): string => {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return "https://kubernetes.default.svc";
  return `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
};

/**
 * Whether the service-account token is mounted (for the default login).
 *
 * @example
 * ```ts
 * if (yield* ServiceAccountLogin.isAvailable()) { ... }
 * ```
 */
export const isAvailable = (options: ServiceAccountOptions = {}): Effect.Effect<boolean> =>
  exists(join(options.directory ?? DEFAULT_DIRECTORY, "token"));

/**
 * Read the service-account credentials.
 *
 * @example
 * ```ts
 * const info = yield* ServiceAccountLogin.login()          // in a pod
 * const test = yield* ServiceAccountLogin.login({ directory: tmp, env: {} })
 * ```
 */
export const login = (
  options: ServiceAccountOptions = {},
): Effect.Effect<ConnectionInfo.ConnectionInfo, LoginError> =>
  Effect.gen(function* () {
    const directory = options.directory ?? DEFAULT_DIRECTORY;
    const tokenPath = join(directory, "token");
    const read = (path: string) =>
      Effect.tryPromise({
        try: () => readFile(path, "utf-8"),
        catch: (cause) =>
          new LoginError({
            reason: "InvalidConfiguration",
            message: `${path}: cannot read the service account file: ${cause instanceof Error ? cause.message : String(cause)}`,
            cause,
          }),
      });
    const token = (yield* read(tokenPath)).trim();
    if (token === "") {
      return yield* new LoginError({
        reason: "InvalidConfiguration",
        message: `${tokenPath}: the token is empty.`,
      });
    }
    const namespacePath = join(directory, "namespace");
    const namespace = (yield* exists(namespacePath)) ? (yield* read(namespacePath)).trim() : undefined;
    const caPath = join(directory, "ca.crt");
    const now = yield* Clock.currentTimeMillis;
    const made = ConnectionInfo.make({
      server: serverOf(options.env ?? process.env),
      caPath: (yield* exists(caPath)) ? caPath : undefined,
      token,
      defaultNamespace: namespace || undefined,
      priority: options.priority ?? 20,
      // Kopf's built-in logins carry `networking.trustEnv` into their credentials.
      trustEnv: (yield* OperatorSettings).networking.trustEnv,
      expiration: now + (options.refreshInterval ?? 60) * 1000,
    });
    if (Result.isFailure(made)) {
      return yield* new LoginError({
        reason: "InvalidConfiguration",
        message: made.failure.message,
        cause: made.failure,
      });
    }
    return made.success;
  });

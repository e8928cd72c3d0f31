/**
 * The results of login handlers (`on.login`, docs/behaviour/operator.md#logins) as credentials for the vault: every
 * non-null result must be connection info (validated here), keyed by the handler's id; no
 * results at all is a `LoginError`. Expirations may be given as epoch milliseconds, a `Date`, or
 * an ISO-8601 text (naive times are UTC, as in Kopf).
 */
import { IsoTime } from "@kopf/structs";
import * as Result from "effect/Result";
import * as ConnectionInfo from "./ConnectionInfo.ts";
import { LoginError } from "./LoginError.ts";
import type { Credentials } from "./Vault.ts";

/** What a login handler may return: connection info fields, with a looser `expiration`. @category models */
export type LoginResult = Omit<ConnectionInfo.ConnectionInfoInput, "expiration"> & {
  readonly expiration?: number | Date | string | undefined;
};

/** Kopf's message when the login activity produced nothing. */
export const NO_CREDENTIALS =
  "Login handlers have failed: no credentials were retrieved from the login handlers.";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const expirationOf = (value: unknown, id: string): Result.Result<number | undefined, LoginError> => {
  if (value === undefined || value === null) return Result.succeed(undefined);
  if (typeof value === "number" && Number.isFinite(value)) return Result.succeed(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return Result.succeed(value.getTime());
  if (typeof value === "string") {
    const parsed = IsoTime.parse(value);
    if (Result.isSuccess(parsed)) return Result.succeed(IsoTime.toMillis(parsed.success));
  }
  return Result.fail(
    new LoginError({
      reason: "InvalidConfiguration",
      message: `The login handler ${JSON.stringify(id)} returned an unusable expiration: ${String(value)}`,
    }),
  );
};

/**
 * Turn the login handlers' results (by handler id; `null`/`undefined` for "nothing") into
 * credentials for the vault.
 *
 * @example
 * ```ts
 * collect([["login_fn", { server: "https://k8s:6443", token: "t", expiration: "2030-01-01T00:00:00" }]])
 * // Result.succeed({ login_fn: { server: …, token: "t", expiration: 1893456000000, priority: 0, trustEnv: false } })
 * ```
 */
export const collect = (
  results: Iterable<readonly [string, unknown]>,
): Result.Result<Credentials, LoginError> => {
  const credentials: Record<string, ConnectionInfo.ConnectionInfo> = {};
  for (const [id, result] of results) {
    if (result === null || result === undefined) continue;
    if (!isObject(result) || typeof result.server !== "string") {
      return Result.fail(
        new LoginError({
          reason: "InvalidConfiguration",
          message: `The login handler ${JSON.stringify(id)} returned neither connection info nor nothing: ${typeof result}`,
        }),
      );
    }
    const expiration = expirationOf(result.expiration, id);
    if (Result.isFailure(expiration)) return Result.fail(expiration.failure);
    const made = ConnectionInfo.make({ ...(result as LoginResult), expiration: expiration.success });
    if (Result.isFailure(made)) {
      return Result.fail(
        new LoginError({
          reason: "InvalidConfiguration",
          message: `The login handler ${JSON.stringify(id)} returned invalid connection info: ${made.failure.message}`,
          cause: made.failure,
        }),
      );
    }
    credentials[id] = made.success;
  }
  return Object.keys(credentials).length === 0
    ? Result.fail(new LoginError({ reason: "OutOfCredentials", message: NO_CREDENTIALS }))
    : Result.succeed(credentials);
};

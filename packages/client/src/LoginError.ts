/**
 * The error of authentication: no usable credentials, a broken kubeconfig, a failing exec
 * plugin or service-account files. (Kopf's `LoginError`.) Its `message` names the problem and,
 * where there is one, the file.
 */
import * as Data from "effect/Data";

/**
 * - `OutOfCredentials`: the vault has nothing left after re-authentication.
 * - `NoConfiguration`: no kubeconfig and no in-cluster service account were found.
 * - `InvalidConfiguration`: a kubeconfig or service-account file is broken or incomplete.
 * - `PluginFailed`: an auth plugin (exec credential command, OIDC…) failed.
 *
 * @category errors
 */
export type LoginErrorReason =
  | "OutOfCredentials"
  | "NoConfiguration"
  | "InvalidConfiguration"
  | "PluginFailed";

/**
 * Authentication failed.
 *
 * @example
 * ```ts
 * import { LoginError } from "@kopf/client"
 * new LoginError({ reason: "InvalidConfiguration", message: "/home/me/.kube/config: no current-context" })
 * ```
 * @category errors
 */
export class LoginError extends Data.TaggedError("LoginError")<{
  readonly reason: LoginErrorReason;
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** Kopf's message when the credentials have run out. */
export const OUT_OF_CREDENTIALS =
  "Ran out of valid credentials. Consider installing an API client library or adding a login handler. " +
  "See more: https://docs.kopf.dev/en/stable/authentication/";

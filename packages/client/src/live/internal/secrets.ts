/**
 * The secret values of a kubeconfig user, and their removal from text that is to be logged (an
 * exec plugin's stderr, an auth provider's error): the last line of defence, after messages that
 * never quote a kubeconfig's values in the first place.
 */
import type { User } from "./kubeconfigFile.ts";

/**
 * Every secret value of a user entry (tokens, passwords, key and certificate data, exec
 * environment values, auth-provider settings), to scrub from text that is to be logged.
 *
 * @example
 * ```ts
 * secretsOf({ name: "u", token: "abc" }) // ["abc"]
 * ```
 */
export const secretsOf = (user: User): ReadonlyArray<string> =>
  [
    user.token,
    user.password,
    user.certData,
    user.keyData,
    ...(user.exec?.env.map((item) => item.value) ?? []),
    ...Object.values(user.authProvider?.config ?? {}).map((value) =>
      typeof value === "string" ? value : undefined,
    ),
  ].filter((value): value is string => value !== undefined && value.length >= 6);

/**
 * Replace every occurrence of the secrets in a text.
 *
 * @example
 * ```ts
 * redact("token abc rejected", ["abc"]) // "token *** rejected"
 * ```
 */
export const redact = (text: string, secrets: ReadonlyArray<string>): string =>
  secrets.reduce((out, secret) => out.split(secret).join("***"), text);

/**
 * The `KOPF_RUN_*` environment variables that `kopf run`'s options fall back to (Click's
 * `auto_envvar_prefix` in Kopf): an option's variable, read as a string, as words, or as a
 * boolean. An empty variable counts as unset.
 */
import * as Result from "effect/Result";

/** The environment, as `process.env` gives it. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The variable of an option: `KOPF_RUN_` and its name in capitals, dashes as underscores.
 *
 * @example
 * envKey("log-format") // "KOPF_RUN_LOG_FORMAT"
 */
export const envKey = (option: string): string => `KOPF_RUN_${option.toUpperCase().replaceAll("-", "_")}`;

/**
 * An option's variable, `undefined` when unset or empty.
 *
 * @example
 * envString({ KOPF_RUN_PEERING: "example" }, "peering") // "example"
 */
export const envString = (env: Env, option: string): string | undefined => {
  const value = env[envKey(option)];
  return value === undefined || value === "" ? undefined : value;
};

/**
 * An option's variable split into words at whitespace (none when unset).
 *
 * @example
 * envWords({ KOPF_RUN_NAMESPACES: "ns1  ns2" }, "namespaces") // ["ns1", "ns2"]
 */
export const envWords = (env: Env, option: string): ReadonlyArray<string> =>
  (envString(env, option) ?? "").split(/\s+/).filter((word) => word !== "");

const TRUE = new Set(["1", "true", "t", "yes", "y", "on"]);
const FALSE = new Set(["0", "false", "f", "no", "n", "off"]);

/**
 * An option's variable as a boolean (`undefined` when unset); a value that is neither fails with
 * a message naming the variable.
 *
 * @example
 * envBoolean({ KOPF_RUN_STANDALONE: "yes" }, "standalone") // Result.succeed(true)
 */
export const envBoolean = (env: Env, option: string): Result.Result<boolean | undefined, string> => {
  const value = envString(env, option);
  if (value === undefined) return Result.succeed(undefined);
  const lower = value.trim().toLowerCase();
  if (TRUE.has(lower)) return Result.succeed(true);
  if (FALSE.has(lower)) return Result.succeed(false);
  return Result.fail(`${envKey(option)}=${value} is not a boolean (use true or false)`);
};

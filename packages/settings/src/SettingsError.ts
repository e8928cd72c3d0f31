/**
 * The error returned when operator settings are rejected: every problem found, each naming the
 * setting's full path (`networking.errorBackoffs[2]`) and what is wrong with it.
 */
import * as Schema from "effect/Schema";

/** Why a setting was rejected. */
export const Reason = Schema.Literals(["InvalidValue", "UnknownSetting", "ConflictingValues"]);
/** Why a setting was rejected. */
export type Reason = typeof Reason.Type;

/** One rejected setting: its full dotted path, why, and a human-readable problem. */
export const Issue = Schema.Struct({
  path: Schema.String,
  reason: Reason,
  problem: Schema.String,
});
/** One rejected setting: its full dotted path, why, and a human-readable problem. */
export type Issue = typeof Issue.Type;

/**
 * Settings were rejected. `issues` lists every problem found (never empty); `reason` is the
 * reason of the first one; `message` reads `path: problem` for all of them, `; `-separated.
 *
 * @example
 * ```ts
 * import * as Result from "effect/Result";
 * import { Settings } from "@kopf/settings";
 *
 * const made = Settings.make({ networking: { errorBackoffs: [1, 2, -3] } });
 * if (Result.isFailure(made)) console.log(made.failure.message);
 * // networking.errorBackoffs[2]: expected a non-negative number
 * ```
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  reason: Reason,
  issues: Schema.Array(Issue),
  message: Schema.String,
}) {}

/** Builds a {@link SettingsError} from its issues (at least one). */
export const fromIssues = (issues: readonly [Issue, ...Array<Issue>]): SettingsError =>
  new SettingsError({
    reason: issues[0].reason,
    issues,
    message: issues.map((issue) => `${issue.path}: ${issue.problem}`).join("; "),
  });

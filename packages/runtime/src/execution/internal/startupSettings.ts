/**
 * The settings of the startup activity. Kopf's startup handlers change `settings` in place; here
 * they get a mutable tree (the caller's own when it can be changed, else a mutable copy) and,
 * once they all succeeded, the tree is validated with `Settings.make` over the settings as they
 * were before; the validated groups are put back into the tree, so whoever holds it (the
 * operator) goes on with the validated settings.
 */
import { type OperatorSettings, Settings, type SettingsError } from "@kopf/settings";
import * as Result from "effect/Result";

/** The tree startup handlers change, and the settings before they ran. */
export interface StartupSettings {
  readonly tree: Settings.MutableSettings;
  readonly before: OperatorSettings;
}

/** Whether the tree and its groups can be assigned to (the defaults, for one, are frozen). */
const isMutable = (settings: OperatorSettings): boolean =>
  !Object.isFrozen(settings) &&
  Object.values(settings).every(
    (group) => typeof group === "object" && group !== null && !Object.isFrozen(group),
  );

/** The tree for the startup handlers, and a snapshot of the settings before them. */
export const prepare = (settings: OperatorSettings): StartupSettings => ({
  tree: isMutable(settings) ? (settings as Settings.MutableSettings) : Settings.mutableCopy(settings),
  before: Settings.mutableCopy(settings),
});

/**
 * Validates the tree as the startup handlers left it (fields they set to `undefined` keep their
 * former values) and, when valid, puts the validated groups back into it.
 */
export const settle = (startup: StartupSettings): Result.Result<OperatorSettings, SettingsError> =>
  Result.map(Settings.make(startup.tree, startup.before), (validated) => {
    const tree = startup.tree as Record<string, unknown>;
    for (const [group, fields] of Object.entries(validated)) tree[group] = fields;
    return validated;
  });

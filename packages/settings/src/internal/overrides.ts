/**
 * Turns user overrides into a candidate settings tree before validation: resolves Kopf's
 * deprecated and alias spellings (`batching`, `queueing.batchWindow`, `peering.namespaced`, a
 * scalar `networking.errorBackoffs`) and merges every group field by field onto a base tree.
 */
import type { Issue } from "../SettingsError.ts";

/** A deprecated setting that was accepted: where it was used and what to do instead. */
export interface SettingsWarning {
  readonly path: string;
  readonly message: string;
}

/** The candidate tree to validate, plus what was noticed on the way. */
export interface Prepared {
  readonly candidate: unknown;
  readonly warnings: ReadonlyArray<SettingsWarning>;
  readonly issues: ReadonlyArray<Issue>;
}

export const BATCHING_MESSAGE =
  "Batching settings are now queueing settings. Please rename `settings.batching` -> `settings.queueing`";
export const BATCH_WINDOW_MESSAGE = "Time-based event batching was removed. Please stop configuring it.";

type Dict = Record<string, unknown>;

/** A plain object literal (not an array, not a class instance such as a storage). */
export const isPlainObject = (u: unknown): u is Dict => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false;
  const proto = Object.getPrototypeOf(u);
  return proto === Object.prototype || proto === null;
};

const definedEntries = (dict: Dict): Dict =>
  Object.fromEntries(Object.entries(dict).filter(([, value]) => value !== undefined));

/** Rewrites the deprecated and alias spellings into the canonical tree, noting warnings and conflicts. */
const canonicalize = (overrides: Dict, warnings: Array<SettingsWarning>, issues: Array<Issue>): Dict => {
  const result: Dict = definedEntries(overrides);

  if ("batching" in result) {
    const batching = result.batching;
    delete result.batching;
    warnings.push({ path: "batching", message: BATCHING_MESSAGE });
    if (!isPlainObject(batching)) {
      issues.push({
        path: "batching",
        reason: "InvalidValue",
        problem: "expected an object of queueing settings",
      });
    } else if (result.queueing === undefined || isPlainObject(result.queueing)) {
      result.queueing = { ...definedEntries(batching), ...definedEntries(result.queueing ?? {}) };
    }
  }

  if (isPlainObject(result.queueing) && result.queueing.batchWindow !== undefined) {
    warnings.push({ path: "queueing.batchWindow", message: BATCH_WINDOW_MESSAGE });
  }

  if (isPlainObject(result.peering) && result.peering.namespaced !== undefined) {
    const { namespaced, ...peering } = result.peering;
    if (typeof namespaced !== "boolean") {
      issues.push({ path: "peering.namespaced", reason: "InvalidValue", problem: "expected a boolean" });
    } else if (peering.clusterwide !== undefined && peering.clusterwide === namespaced) {
      issues.push({
        path: "peering.namespaced",
        reason: "ConflictingValues",
        problem: `contradicts peering.clusterwide=${String(peering.clusterwide)} (namespaced is its inverse)`,
      });
    } else {
      peering.clusterwide = !namespaced;
    }
    result.peering = peering;
  }

  if (isPlainObject(result.networking) && typeof result.networking.errorBackoffs === "number") {
    result.networking = { ...result.networking, errorBackoffs: [result.networking.errorBackoffs] };
  }

  return result;
};

/**
 * Prepares `overrides` for validation against `base`: groups given as plain objects are merged
 * field by field (fields set to `undefined` are ignored); anything else replaces what it
 * overrides, so that validation reports it.
 */
export const prepare = (overrides: unknown, base: object): Prepared => {
  const warnings: Array<SettingsWarning> = [];
  const issues: Array<Issue> = [];
  if (overrides === undefined || overrides === null) return { candidate: base, warnings, issues };
  if (!isPlainObject(overrides)) return { candidate: overrides, warnings, issues };

  const canonical = canonicalize(overrides, warnings, issues);
  const candidate: Dict = { ...(base as Dict) };
  for (const [group, value] of Object.entries(canonical)) {
    const current = candidate[group];
    candidate[group] =
      isPlainObject(value) && isPlainObject(current) ? { ...current, ...definedEntries(value) } : value;
  }
  return { candidate, warnings, issues };
};

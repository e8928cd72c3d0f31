/**
 * Operator settings: Kopf's defaults, validated construction from user overrides, and the
 * `OperatorSettings` reference through which the runtime reads them inside Effect.
 *
 * Settings are immutable values. Where Kopf lets startup handlers mutate `settings`, the port
 * builds a new tree with {@link make} (on top of the current one) and provides it.
 */
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from "@kopf/storage";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { toIssues } from "./internal/issues.ts";
import { prepare, type SettingsWarning } from "./internal/overrides.ts";
import { OperatorSettingsSchema } from "./internal/schema.ts";
import { fromIssues, type SettingsError } from "./SettingsError.ts";
import type * as Tree from "./SettingsTree.ts";

export type { SettingsWarning } from "./internal/overrides.ts";
export type {
  AdmissionSettings,
  BackgroundSettings,
  ExecutionSettings,
  NetworkingSettings,
  PeeringSettings,
  PersistenceSettings,
  PostingSettings,
  ProcessSettings,
  QueueingSettings,
  ScalingSettings,
  ScanningSettings,
  WatchingSettings,
} from "./SettingsTree.ts";

/** The whole settings tree of one operator (see each group for fields, units and defaults). */
export type OperatorSettings = Tree.OperatorSettings;

type Loose<T> = { readonly [K in keyof T]?: T[K] | undefined };

/**
 * Partial settings to put over the defaults (or over another tree): any group, any field.
 * Also accepts Kopf's deprecated `batching` alias of `queueing`, `peering.namespaced` (the
 * inverse of `clusterwide`), and a single number for `networking.errorBackoffs`.
 */
export interface Overrides {
  readonly process?: Loose<Tree.ProcessSettings> | undefined;
  readonly posting?: Loose<Tree.PostingSettings> | undefined;
  readonly peering?:
    | (Loose<Tree.PeeringSettings> & { readonly namespaced?: boolean | undefined })
    | undefined;
  readonly scaling?: Loose<Tree.ScalingSettings> | undefined;
  readonly watching?: Loose<Tree.WatchingSettings> | undefined;
  readonly queueing?: Loose<Tree.QueueingSettings> | undefined;
  /** @deprecated Batching settings are now queueing settings: use `queueing`. */
  readonly batching?: Loose<Tree.QueueingSettings> | undefined;
  readonly scanning?: Loose<Tree.ScanningSettings> | undefined;
  readonly admission?: Loose<Tree.AdmissionSettings> | undefined;
  readonly execution?: Loose<Tree.ExecutionSettings> | undefined;
  readonly networking?:
    | (Loose<Omit<Tree.NetworkingSettings, "errorBackoffs">> & {
        readonly errorBackoffs?: number | ReadonlyArray<number> | undefined;
      })
    | undefined;
  readonly persistence?: Loose<Tree.PersistenceSettings> | undefined;
  readonly background?: Loose<Tree.BackgroundSettings> | undefined;
}

/** A validated tree plus the deprecation warnings its overrides caused. */
export interface Made {
  readonly settings: OperatorSettings;
  readonly warnings: ReadonlyArray<SettingsWarning>;
}

/** Freezes the groups and lists of a tree (not the storages it holds). */
const frozen = (settings: OperatorSettings): OperatorSettings => {
  for (const fields of Object.values(settings)) {
    for (const value of Object.values(fields as object)) if (Array.isArray(value)) Object.freeze(value);
    Object.freeze(fields);
  }
  return Object.freeze(settings);
};

/**
 * Kopf's defaults (`kopf.OperatorSettings()`), camelCased; durations in seconds. Frozen: build
 * changed trees with {@link make} or {@link mutableCopy}.
 *
 * @example
 * ```ts
 * import { Settings } from "@kopf/settings";
 * Settings.defaults.watching.inactivityTimeout; // 70
 * ```
 */
export const defaults: OperatorSettings = frozen({
  process: { ultimateExitingTimeout: 600 },
  posting: {
    enabled: true,
    loggers: false,
    level: "Info",
    reportingComponent: "kopf",
    reportingInstance: "dev",
    eventNamePrefix: "kopf-event-",
  },
  peering: {
    name: "default",
    stealth: false,
    priority: 0,
    lifetime: 60,
    mandatory: false,
    standalone: false,
    clusterwide: false,
  },
  scaling: {
    mode: "single",
    leaseName: "kopf",
    leaseNamespace: null,
    leaseDuration: 15,
    renewDeadline: 10,
    retryPeriod: 2,
    watch: "auto",
  },
  watching: {
    serverTimeout: null,
    clientTimeout: null,
    connectTimeout: null,
    reconnectBackoff: 0.1,
    inactivityTimeout: 70,
  },
  queueing: {
    workerLimit: null,
    cycleLimit: 32,
    adaptiveCycleLimit: true,
    idleTimeout: 5,
    exitTimeout: 2,
    errorDelays: [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610],
    batchWindow: 0.1,
  },
  scanning: { disabled: false },
  admission: { server: null, managed: null },
  execution: { defaultBackoff: 60, maxWorkers: null },
  networking: {
    requestTimeout: 300,
    connectTimeout: null,
    errorBackoffs: [1, 1, 2, 3, 5, 8, 13, 21],
    enforceRetryAfter: false,
    trustEnv: false,
    rateLimit: null,
  },
  persistence: {
    finalizer: "kopf.zalando.org/KopfFinalizerMarker",
    progressStorage: SmartProgressStorage.makeDefault(),
    diffbaseStorage: AnnotationsDiffBaseStorage.makeDefault(),
    consistencyTimeout: 5,
  },
  background: {
    cancellationPolling: 60,
    instantExitTimeout: null,
    instantExitZeroTimeCycles: 10,
  },
});

const decode = Schema.decodeUnknownResult(OperatorSettingsSchema);

/**
 * Validates `overrides` merged over `base` (the defaults unless given) and returns the tree with
 * the deprecation warnings, or every problem found. Groups merge field by field; lists and
 * objects inside a field are replaced, not merged.
 *
 * @example
 * ```ts
 * import * as Result from "effect/Result";
 * import { Settings } from "@kopf/settings";
 *
 * const made = Settings.makeWithWarnings({ batching: { idleTimeout: 1 } });
 * // Result.succeed({ settings: {… queueing.idleTimeout: 1 …}, warnings: [{ path: "batching", … }] })
 * ```
 */
export const makeWithWarnings = (
  overrides?: Overrides,
  base: OperatorSettings = defaults,
): Result.Result<Made, SettingsError> => {
  const prepared = prepare(overrides, base);
  const decoded = decode(prepared.candidate, { errors: "all", onExcessProperty: "error" });
  const issues = [...prepared.issues, ...(Result.isFailure(decoded) ? toIssues(decoded.failure.issue) : [])];
  const [first, ...rest] = issues;
  if (first !== undefined) return Result.fail(fromIssues([first, ...rest]));
  if (Result.isFailure(decoded)) {
    return Result.fail(
      fromIssues([{ path: "settings", reason: "InvalidValue", problem: "invalid settings" }]),
    );
  }
  const settings: OperatorSettings = decoded.success;
  return Result.succeed({ settings, warnings: prepared.warnings });
};

/**
 * Like {@link makeWithWarnings}, dropping the warnings (use {@link makeEffect} to log them).
 *
 * @example
 * ```ts
 * import { Settings } from "@kopf/settings";
 * const made = Settings.make({ peering: { standalone: true }, persistence: { consistencyTimeout: 0 } });
 * ```
 */
export const make = (
  overrides?: Overrides,
  base: OperatorSettings = defaults,
): Result.Result<OperatorSettings, SettingsError> =>
  Result.map(makeWithWarnings(overrides, base), (made) => made.settings);

/**
 * Validates overrides inside Effect: logs each deprecation warning with `Effect.logWarning` and
 * fails with the `SettingsError` when rejected.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { Settings } from "@kopf/settings";
 * const program = Settings.makeEffect({ posting: { loggers: true } });
 * ```
 */
export const makeEffect = Effect.fnUntraced(function* (overrides?: Overrides, base?: OperatorSettings) {
  const made = yield* Effect.fromResult(makeWithWarnings(overrides, base));
  for (const warning of made.warnings) {
    yield* Effect.logWarning(`${warning.path}: ${warning.message}`);
  }
  return made.settings;
});

/** A settings tree whose groups and fields can be assigned, as startup handlers get it in Kopf. */
export type MutableSettings = {
  -readonly [G in keyof OperatorSettings]: {
    -readonly [F in keyof OperatorSettings[G]]: OperatorSettings[G][F];
  };
};

/**
 * A copy of a settings tree for `on.startup` handlers to modify in place (Kopf passes them the
 * live `settings`); validate the result with {@link make} afterwards. Groups and lists are
 * copied; storages and the webhook server are shared.
 *
 * @example
 * ```ts
 * import { Settings } from "@kopf/settings";
 * const settings = Settings.mutableCopy(Settings.defaults);
 * settings.posting.level = "Warn"; // in a startup handler
 * const validated = Settings.make(settings); // Result<OperatorSettings, SettingsError>
 * ```
 */
export const mutableCopy = (settings: OperatorSettings): MutableSettings => {
  const copy = {} as Record<string, Record<string, unknown>>;
  for (const [group, fields] of Object.entries(settings)) {
    copy[group] = Object.fromEntries(
      Object.entries(fields as Record<string, unknown>).map(([field, value]) => [
        field,
        Array.isArray(value) ? [...value] : value,
      ]),
    );
  }
  return copy as MutableSettings;
};

/**
 * The settings the runtime reads; {@link defaults} unless provided.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { OperatorSettings } from "@kopf/settings";
 * const program = Effect.gen(function* () {
 *   const settings = yield* OperatorSettings;
 *   return settings.persistence.finalizer;
 * });
 * ```
 */
export const OperatorSettings: Context.Reference<OperatorSettings> = Context.Reference<OperatorSettings>(
  "@kopf/settings/OperatorSettings",
  { defaultValue: () => defaults },
);

/**
 * A layer providing the defaults with `overrides` applied (warnings logged), or failing with
 * the `SettingsError`.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { OperatorSettings, Settings } from "@kopf/settings";
 * const program = Effect.gen(function* () {
 *   return (yield* OperatorSettings).peering.name; // "mine"
 * }).pipe(Effect.provide(Settings.layer({ peering: { name: "mine" } })));
 * ```
 */
export const layer = (overrides?: Overrides): Layer.Layer<never, SettingsError> =>
  Layer.effect(OperatorSettings, makeEffect(overrides));

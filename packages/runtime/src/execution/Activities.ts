/**
 * Operator-level activities (docs/behaviour/operator.md#tasks-start-up-and-shutdown, docs/behaviour/operator.md#liveness-endpoint, docs/behaviour/operator.md#logins): all handlers of `on.startup`,
 * `on.cleanup` or `on.login` run all at once and are retried (by their errors mode, backoff and
 * limits) until every one has finished; any final failure makes the whole activity fail with
 * `ActivityError` (a failed startup stops the operator before it touches the API). Handlers get
 * `logger`, `memo` (the operator's), `activity`, `settings`, `param`, `retry`, `started`,
 * `runtime` and the indices.
 *
 * Startup handlers may change `settings` in place, as in Kopf; once they all succeeded, the
 * changed tree is validated with `Settings.make` and the validated settings are put back into it
 * (invalid settings fail the activity). Probes (`on.probe`) run once per request instead: a
 * failure of any kind fails that probing at once (Kopf's health endpoint answers it with 500).
 *
 * `authenticate` validates login results into vault credentials; `probe` gives the probes'
 * JSON results by handler id for the health endpoint.
 */
import { type Credentials, Login, LoginError } from "@kopf/client";
import type { Activity, ActivityHandler, HandlerCause, Logger, Memo, Registry } from "@kopf/registry";
import { Handler, Lifecycles } from "@kopf/registry";
import { OperatorSettings, type Settings } from "@kopf/settings";
import { type Outcome, State } from "@kopf/storage";
import { IsoTime } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { executeHandlersOnce } from "./Handling.ts";
import * as EffectLogger from "./internal/effectLogger.ts";
import * as StartupSettings from "./internal/startupSettings.ts";

/**
 * One or more handlers of an activity failed for good, or the startup handlers left invalid
 * settings.
 *
 * @example
 * Effect.catchTag("ActivityError", (e) => Effect.logError(e.message, Object.keys(e.errors)))
 */
export class ActivityError extends Data.TaggedError("ActivityError")<{
  readonly reason: "HandlersFailed" | "InvalidSettings";
  readonly activity: Activity;
  readonly message: string;
  /** The final outcome of every handler, by id. */
  readonly outcomes: ReadonlyMap<string, Outcome.Outcome>;
  /** The failures, by handler id. */
  readonly errors: Readonly<Record<string, unknown>>;
  /** The `SettingsError` of invalid settings. */
  readonly cause?: unknown;
}> {}

/** How an activity runs. */
export interface ActivityOptions {
  /** The operator's memo, shared with every handler. Default: a new empty one. */
  readonly memo?: Memo | undefined;
  /**
   * The settings handlers get and that the execution uses (default backoff). Default: the
   * `OperatorSettings` in the context. Startup handlers change this very tree when it is
   * mutable (a `Settings.mutableCopy`), which then holds the validated settings afterwards;
   * they change a copy otherwise.
   */
  readonly settings?: OperatorSettings | Settings.MutableSettings | undefined;
  /** The operator's indices by name. */
  readonly indices?: Readonly<Record<string, unknown>> | undefined;
  /** Default: Effect's logging, annotated `logger: kopf.activities.<activity>`. */
  readonly logger?: Logger | undefined;
}

/** The cause every handler of the activity gets. */
const causeOf = (activity: Activity, options: ActivityOptions, settings: OperatorSettings) =>
  Effect.gen(function* () {
    const cause: HandlerCause.ActivityCause = {
      _tag: "ActivityCause",
      activity,
      settings,
      logger: options.logger ?? (yield* EffectLogger.make(`kopf.activities.${activity}`)),
      memo: options.memo ?? {},
      indices: options.indices ?? {},
    };
    return cause;
  });

/** The non-null results by handler id, or the `ActivityError` of the failed ones. */
const conclude = (
  activity: Activity,
  outcomes: ReadonlyMap<string, Outcome.Outcome>,
): Result.Result<ReadonlyMap<string, unknown>, ActivityError> => {
  const errors: Record<string, unknown> = {};
  const results = new Map<string, unknown>();
  for (const [id, outcome] of outcomes) {
    if (outcome.error !== undefined && outcome.error !== null) errors[id] = outcome.error;
    else if (outcome.result !== undefined && outcome.result !== null) results.set(id, outcome.result);
  }
  if (Object.keys(errors).length === 0) return Result.succeed(results);
  return Result.fail(
    new ActivityError({
      reason: "HandlersFailed",
      activity,
      message: "One or more handlers failed.",
      outcomes,
      errors,
    }),
  );
};

/**
 * Runs all handlers of an activity until all have finished; completes with their non-null
 * results by handler id (no handlers: nothing). For `startup`, then validates the settings the
 * handlers changed (see {@link ActivityOptions.settings}).
 *
 * @example
 * const settings = Settings.mutableCopy(yield* OperatorSettings)
 * yield* Activities.run(registry, "startup", { memo, settings }) // settings: validated, as changed
 */
export const run = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  activity: Activity,
  options: ActivityOptions = {},
): Effect.Effect<ReadonlyMap<string, unknown>, ActivityError | State.StateError> =>
  Effect.gen(function* () {
    const given = options.settings ?? (yield* OperatorSettings);
    const startup = activity === "startup" ? StartupSettings.prepare(given) : undefined;
    const settings: OperatorSettings = startup?.tree ?? given;
    const cause = yield* causeOf(activity, options, settings);
    const handlers: ReadonlyArray<ActivityHandler> = registry.activityHandlers(activity);
    let state = State.withHandlers(State.empty(), handlers, yield* IsoTime.now);
    const outcomes = new Map<string, Outcome.Outcome>();
    while (!State.isDone(state)) {
      const current = yield* executeHandlersOnce({
        lifecycle: Lifecycles.all_at_once,
        settings,
        handlers,
        cause,
        state,
      });
      for (const [id, outcome] of current) outcomes.set(id, outcome);
      const now = yield* IsoTime.now;
      state = yield* Effect.fromResult(State.withOutcomes(state, current, now));
      const delay = State.delay(state, now);
      if (delay !== null) yield* Effect.sleep(Duration.seconds(delay));
    }
    const results = yield* Effect.fromResult(conclude(activity, outcomes));
    if (startup !== undefined) {
      yield* Effect.fromResult(StartupSettings.settle(startup)).pipe(
        Effect.mapError(
          (error) =>
            new ActivityError({
              reason: "InvalidSettings",
              activity,
              message: `The settings changed by the startup handlers are invalid: ${error.message}`,
              outcomes,
              errors: {},
              cause: error,
            }),
        ),
      );
    }
    return results;
  });

/**
 * Runs the login activity and turns its results into credentials for the vault, by handler id:
 * each non-null result must be connection info (a `LoginError` otherwise, as Kopf's "Only
 * ConnectionInfo … instances are accepted."). No results at all give no credentials (the vault
 * then reports that none were retrieved).
 *
 * @example
 * const credentials = yield* Activities.authenticate(registry, { memo })
 */
export const authenticate = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  options: ActivityOptions = {},
): Effect.Effect<Credentials, ActivityError | LoginError | State.StateError> =>
  Effect.flatMap(run(registry, "authentication", options), (results) =>
    results.size === 0 ? Effect.succeed({}) : Effect.fromResult(Login.collect(results.entries())),
  );

/**
 * The login activity as the credentials vault runs it (`CredentialsVault.layer({ login })`):
 * like `authenticate`, with failed login handlers reported as a `LoginError` too.
 *
 * @example
 * CredentialsVault.layer({ login: Activities.login(registry, { memo }) })
 */
export const login = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  options: ActivityOptions = {},
): Effect.Effect<Credentials, LoginError> =>
  authenticate(registry, options).pipe(
    Effect.catchTags({
      ActivityError: (error) =>
        Effect.fail(
          new LoginError({
            reason: "PluginFailed",
            message: `Login handlers have failed: ${Object.keys(error.errors).join(", ")}.`,
            cause: error,
          }),
        ),
      StateError: (error) =>
        Effect.fail(new LoginError({ reason: "PluginFailed", message: error.message, cause: error })),
    }),
  );

/**
 * Runs the probes (`on.probe`) once, all at once, and gives their results by handler id, as the
 * health endpoint reports them (`{}` without probes). Nothing is retried: a probe that fails in
 * any way (an arbitrary error too, unless its errors mode is `ignored`) fails this probing with
 * `ActivityError`; the next probing runs it afresh.
 *
 * @example
 * const report = yield* Activities.probe(registry, { memo }) // { "fn": 42 }
 */
export const probe = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  options: ActivityOptions = {},
): Effect.Effect<Readonly<Record<string, unknown>>, ActivityError | State.StateError> =>
  Effect.gen(function* () {
    const settings = options.settings ?? (yield* OperatorSettings);
    const cause = yield* causeOf("probe", options, settings);
    // Arbitrary errors are final for this probing (logged as such, not "will try again").
    const handlers = registry
      .activityHandlers("probe")
      .map(
        (handler): ActivityHandler =>
          Handler.effectiveErrors(handler) === "temporary" ? { ...handler, errors: "permanent" } : handler,
      );
    const state = State.withHandlers(State.empty(), handlers, yield* IsoTime.now);
    const outcomes = yield* executeHandlersOnce({
      lifecycle: Lifecycles.all_at_once,
      settings,
      handlers,
      cause,
      state,
    });
    return Object.fromEntries(yield* Effect.fromResult(conclude("probe", outcomes)));
  });

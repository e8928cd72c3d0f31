/**
 * Operator-level activities (Kopf §7.8, §12.2, §12.3): all handlers of `on.startup`,
 * `on.cleanup`, `on.login` or `on.probe` run all at once and are retried (by their errors
 * mode, backoff and limits) until every one has finished; any final failure makes the whole
 * activity fail with `ActivityError` (a failed startup stops the operator before it touches
 * the API). Handlers get `logger`, `memo` (the operator's), `activity`, `settings`, `param`,
 * `retry`, `started`, `runtime` and the indices.
 *
 * `authenticate` validates login results into vault credentials; `probe` gives the probes'
 * JSON results by handler id for the health endpoint.
 */
import { type Credentials, Login, LoginError } from "@kopf/client";
import type { Activity, ActivityHandler, HandlerCause, Logger, Memo, Registry } from "@kopf/registry";
import { Lifecycles } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { type Outcome, State } from "@kopf/storage";
import { IsoTime } from "@kopf/structs";
import { Data, Duration, Effect } from "effect";
import { executeHandlersOnce } from "./Handling.ts";
import * as EffectLogger from "./internal/effectLogger.ts";

/**
 * One or more handlers of an activity failed for good.
 *
 * @example
 * Effect.catchTag("ActivityError", (e) => Effect.logError(e.message, Object.keys(e.errors)))
 */
export class ActivityError extends Data.TaggedError("ActivityError")<{
  readonly reason: "HandlersFailed";
  readonly activity: Activity;
  readonly message: string;
  /** The final outcome of every handler, by id. */
  readonly outcomes: ReadonlyMap<string, Outcome.Outcome>;
  /** The failures, by handler id. */
  readonly errors: Readonly<Record<string, unknown>>;
}> {}

/** How an activity runs. */
export interface ActivityOptions {
  /** The operator's memo, shared with every handler. Default: a new empty one. */
  readonly memo?: Memo | undefined;
  /**
   * The settings handlers get (startup handlers may modify a `Settings.mutableCopy`) and
   * that the execution uses (default backoff). Default: the `OperatorSettings` in the context.
   */
  readonly settings?: OperatorSettings | undefined;
  /** The operator's indices by name. */
  readonly indices?: Readonly<Record<string, unknown>> | undefined;
  /** Default: Effect's logging, annotated `logger: kopf.activities.<activity>`. */
  readonly logger?: Logger | undefined;
}

/**
 * Runs all handlers of an activity until all have finished; completes with their non-null
 * results by handler id (no handlers: nothing).
 *
 * @example
 * yield* Activities.run(registry, "startup", { memo, settings: Settings.mutableCopy(settings) })
 */
export const run = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  activity: Activity,
  options: ActivityOptions = {},
): Effect.Effect<ReadonlyMap<string, unknown>, ActivityError | State.StateError> =>
  Effect.gen(function* () {
    const settings = options.settings ?? (yield* OperatorSettings);
    const logger = options.logger ?? (yield* EffectLogger.make(`kopf.activities.${activity}`));
    const handlers: ReadonlyArray<ActivityHandler> = registry.activityHandlers(activity);
    const cause: HandlerCause.ActivityCause = {
      _tag: "ActivityCause",
      activity,
      settings,
      logger,
      memo: options.memo ?? {},
      indices: options.indices ?? {},
    };
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
    const errors: Record<string, unknown> = {};
    for (const [id, outcome] of outcomes) {
      if (outcome.error !== undefined && outcome.error !== null) errors[id] = outcome.error;
    }
    if (Object.keys(errors).length > 0) {
      return yield* new ActivityError({
        reason: "HandlersFailed",
        activity,
        message: "One or more handlers failed.",
        outcomes,
        errors,
      });
    }
    const results = new Map<string, unknown>();
    for (const [id, outcome] of outcomes) {
      if (outcome.result !== undefined && outcome.result !== null) results.set(id, outcome.result);
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
 * Runs the probes (`on.probe`) once and gives their results by handler id, as the health
 * endpoint reports them (`{}` without probes); a failing probe fails with `ActivityError`.
 *
 * @example
 * const report = yield* Activities.probe(registry, { memo }) // { "fn": 42 }
 */
export const probe = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  options: ActivityOptions = {},
): Effect.Effect<Readonly<Record<string, unknown>>, ActivityError | State.StateError> =>
  Effect.map(run(registry, "probe", options), (results) => Object.fromEntries(results));

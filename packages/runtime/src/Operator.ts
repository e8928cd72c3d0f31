/**
 * The operator as an Effect program (Kopf's `operator()`/`spawn_tasks`, docs/behaviour/operator.md#tasks-start-up-and-shutdown): validate the
 * options, run the startup activity (the operator handles nothing before it succeeds; a final
 * failure stops it before it touches the API), then orchestrate the watchers and process events
 * until interrupted; on interruption, stop the watches, let the running handlers finish within
 * `queueing.exitTimeout` seconds (progress is persisted by the cycles that complete), and run
 * the cleanup activity. Extra root tasks (`tasks`: admission, the liveness endpoint, peering)
 * start after startup, run beside the orchestration and are interrupted after it has stopped
 * (and the engines' `exiting` has run), before the cleanup activity.
 *
 * The `KubeApi` comes from the context, so an embedding application or a test provides the live
 * client or the emulator's. Readiness is a `Deferred` completed after startup; stopping is
 * interrupting the fiber (see {@link start} for a handle with `ready`, `stop` and `done`).
 */
import { type Credentials, type KubeApi, LoginError } from "@kopf/client";
import type { Registry } from "@kopf/registry";
import { OperatorSettings, RunOptions, Settings, type SettingsError } from "@kopf/settings";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import * as Activities from "./execution/Activities.ts";
import { type Mode, operate } from "./internal/operate.ts";
import { OperatorError, type OperatorOptions } from "./internal/operatorOptions.ts";

export { OperatorError, type OperatorOptions, StopNotice } from "./internal/operatorOptions.ts";

/** Checks the run mode (Kopf's `spawn_tasks` validation). */
const modeOf = (options: OperatorOptions): Effect.Effect<Mode, OperatorError> =>
  Effect.gen(function* () {
    const namespaces = options.namespaces ?? [];
    if (options.clusterwide === true && namespaces.length > 0) {
      return yield* new OperatorError({
        reason: "InvalidOptions",
        message: "Either clusterwide=true or namespaces=[...] can be set, not both.",
      });
    }
    if (options.clusterwide !== true && namespaces.length === 0) {
      yield* Effect.logWarning(
        "Absence of either namespaces or cluster-wide flag will become an error soon. " +
          "For now, switching to the cluster-wide mode for backward compatibility.",
      );
      return { clusterwide: true, namespaces: [] };
    }
    return { clusterwide: options.clusterwide === true, namespaces };
  });

/**
 * Runs the operator until interrupted (a graceful stop) or until startup fails.
 *
 * @example
 * ```ts
 * const registry = Registry.make()
 * registry.on.create("kopfexamples", function createFn({ logger }) { logger.info("created") })
 * const program = Operator.run({ registry, namespaces: ["default"] })
 * // provide a KubeApi (live or the emulator's) and run it; interrupt it to stop
 * ```
 */
export const run = (options: OperatorOptions): Effect.Effect<void, OperatorError, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const mode = yield* modeOf(options);
      const base = yield* OperatorSettings;
      const forRun = RunOptions.forRun({
        clusterwide: mode.clusterwide,
        peeringName: options.peeringName,
        standalone: options.standalone,
        priority: options.priority,
        leaderElection: options.leaderElection,
        sharding: options.sharding,
        leaseName: options.leaseName,
        leaseNamespace: options.leaseNamespace,
      });
      if (options.leaderElection === true && options.sharding === true) {
        return yield* new OperatorError({
          reason: "InvalidOptions",
          message: "Either leader election or sharding can be used, not both.",
        });
      }
      const made = yield* Settings.makeEffect(
        {
          ...options.settings,
          peering: { ...options.settings?.peering, ...forRun.peering },
          scaling: { ...options.settings?.scaling, ...forRun.scaling },
        },
        base,
      ).pipe(
        Effect.mapError(
          (error: SettingsError) =>
            new OperatorError({ reason: "InvalidSettings", message: error.message, cause: error }),
        ),
      );
      // Startup handlers may change the settings: they get a mutable copy, which the rest uses.
      const settings = Settings.mutableCopy(made) as OperatorSettings;
      const memo = options.memo ?? {};
      return yield* operate(options, mode, memo, settings).pipe(
        Effect.provideService(OperatorSettings, settings),
      );
    }),
  );

/**
 * The login activity as the credentials vault's `login` (Kopf's authenticator, docs/behaviour/operator.md#logins):
 * runs the registry's `on.login` handlers (or its fallback logins) and validates their results;
 * a failed activity is a `LoginError` ("no credentials"), so the vault logs it and callers wait
 * or fail as Kopf's do.
 *
 * @example
 * ```ts
 * const vault = CredentialsVault.layer({ login: Operator.login(registry, { memo }) })
 * ```
 */
export const login = (
  registry: Registry.Registry<any>,
  options: Activities.ActivityOptions = {},
): Effect.Effect<Credentials, LoginError> =>
  Activities.authenticate(registry, options).pipe(
    Effect.catchTags({
      ActivityError: (error) =>
        Effect.fail(new LoginError({ reason: "PluginFailed", message: error.message, cause: error })),
      StateError: (error) =>
        Effect.fail(new LoginError({ reason: "PluginFailed", message: error.message, cause: error })),
    }),
  );

/** A running operator. */
export interface Handle {
  /**
   * Completes when the operator is ready (startup done, watches starting); fails if it ended
   * before (a failed startup, or stopped early).
   */
  readonly ready: Effect.Effect<void, OperatorError>;
  /** Stops gracefully and waits until it has stopped. */
  readonly stop: Effect.Effect<void>;
  /** Completes with the operator's exit (after a stop, a startup failure, …). */
  readonly done: Effect.Effect<Exit.Exit<void, OperatorError>>;
}

/**
 * Starts the operator in the background of the current scope (closing the scope stops it).
 *
 * @example
 * ```ts
 * const operator = yield* Operator.start({ registry, namespaces: ["ns1"] })
 * yield* operator.ready
 * // … create objects, assert …
 * yield* operator.stop
 * ```
 */
export const start = (options: OperatorOptions): Effect.Effect<Handle, never, KubeApi | Scope.Scope> =>
  Effect.gen(function* () {
    const ready = options.ready ?? (yield* Deferred.make<void>());
    const fiber = yield* Effect.forkScoped(run({ ...options, ready }));
    return {
      ready: Effect.raceFirst(
        Deferred.await(ready),
        Effect.flatMap(Fiber.await(fiber), (exit) =>
          Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)
            ? Effect.failCause(exit.cause)
            : Effect.fail(
                new OperatorError({
                  reason: "Stopped",
                  message: "The operator stopped before it was ready.",
                }),
              ),
        ),
      ),
      stop: Effect.asVoid(Fiber.interrupt(fiber)),
      done: Fiber.await(fiber),
    };
  });

/** The running operator as a service (see {@link layer}). */
export class RunningOperator extends Context.Service<RunningOperator, Handle>()(
  "@kopf/runtime/RunningOperator",
) {}

/**
 * The operator as a layer: built when the layer is, stopped gracefully when it is released.
 *
 * @example
 * ```ts
 * const app = Layer.provide(Operator.layer({ registry, clusterwide: true }), liveKubeApi)
 * ```
 */
export const layer = (options: OperatorOptions): Layer.Layer<RunningOperator, never, KubeApi> =>
  Layer.effect(RunningOperator, start(options));

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
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import { OperatorSettings, RunOptions, Settings, type SettingsError } from "@kopf/settings";
import type { NamespaceObserver } from "@kopf/watcher";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import type * as Scope from "effect/Scope";
import type * as Engines from "./Engines.ts";
import * as Activities from "./execution/Activities.ts";
import * as StopOrder from "./internal/stopOrder.ts";
import * as Watching from "./internal/watching.ts";
import * as Orchestrator from "./Orchestrator.ts";
import * as Posting from "./Posting.ts";
import type * as Processing from "./Processing.ts";
import * as RootTasks from "./RootTasks.ts";

/**
 * Why the operator is being stopped, when something other than a plain interruption stops it:
 * the signal handler records the signal here (and logs it), so the operator does not log Kopf's
 * "Stop-flag is raised" line as well.
 */
export interface StopNotice {
  signal: string | undefined;
}

/** The stop notice of the running operator (a fresh, empty one by default). */
export const StopNotice: Context.Reference<StopNotice> = Context.Reference<StopNotice>(
  "@kopf/runtime/Operator/StopNotice",
  { defaultValue: () => ({ signal: undefined }) },
);

/** Why the operator could not run. */
export class OperatorError extends Data.TaggedError("OperatorError")<{
  readonly reason: "InvalidOptions" | "StartupFailed" | "InvalidSettings" | "Stopped" | "TaskFailed";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** How to run the operator (Kopf's `kopf.run`/`operator` arguments). */
export interface OperatorOptions {
  /** The handlers (the facade passes its default registry). */
  readonly registry: Registry.Registry<any>;
  /** Settings overrides on top of the `OperatorSettings` in the context. */
  readonly settings?: Settings.Overrides | undefined;
  /** Namespace patterns to serve (`--namespace`). */
  readonly namespaces?: ReadonlyArray<NamespaceObserver.Pattern> | undefined;
  /** Serve the whole cluster (`--all-namespaces`). */
  readonly clusterwide?: boolean | undefined;
  /** The operator's memo, shared with activities; every object gets a shallow copy. */
  readonly memo?: Memo | undefined;
  /** Peering options (for @kopf/engines' `Operating.run`, which runs peering). */
  readonly identity?: string | undefined;
  readonly standalone?: boolean | undefined;
  readonly priority?: number | undefined;
  readonly peeringName?: string | undefined;
  /**
   * Scaling out (run by @kopf/engines' `Operating.run`; see `settings.scaling`): one leader
   * with warm standbys, or every replica handling its share (sharding); the Leases' name and
   * namespace.
   */
  readonly leaderElection?: boolean | undefined;
  readonly sharding?: boolean | undefined;
  readonly leaseName?: string | undefined;
  readonly leaseNamespace?: string | undefined;
  /** The health endpoint URL (served by @kopf/engines' `Operating.run`). */
  readonly livenessEndpoint?: string | undefined;
  /** The Prometheus metrics endpoint URL, e.g. `http://0.0.0.0:9090/metrics` (served by @kopf/engines' `Operating.run`). */
  readonly metricsEndpoint?: string | undefined;
  /**
   * Whether @kopf/engines' `Operating.run` records the operator's metrics (see `@kopf/client`'s
   * `MetricRecording`); by default it does when it serves them at `metricsEndpoint`, the one
   * reader of the metric registry there is. `Operator.run` itself records them as its context
   * says (by default, it does).
   */
  readonly recordMetrics?: boolean | undefined;
  /** How changing handlers are chosen per cycle (Kopf's default lifecycle); default `asap`. */
  readonly lifecycle?: Lifecycle | undefined;
  /** Engines plugged into processing (indexing, daemons and timers); none by default. */
  readonly engines?: Engines.Engines | undefined;
  /** Completed once startup handlers succeeded and the watches are starting. */
  readonly ready?: Deferred.Deferred<void> | undefined;
  /** Extra root tasks run beside the orchestration after startup (see {@link RootTasks}). */
  readonly tasks?: ReadonlyArray<RootTasks.RootTask> | undefined;
}

/** Checks the run mode (Kopf's `spawn_tasks` validation). */
const modeOf = (options: OperatorOptions) =>
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
      return { clusterwide: true, namespaces: [] as ReadonlyArray<NamespaceObserver.Pattern> };
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

const operate = (
  options: OperatorOptions,
  mode: { clusterwide: boolean; namespaces: ReadonlyArray<NamespaceObserver.Pattern> },
  memo: Memo,
  settings: OperatorSettings,
): Effect.Effect<void, OperatorError, KubeApi | Scope.Scope> =>
  Effect.gen(function* () {
    // Every index reaches every handler (docs/behaviour/indexing.md), the operator-level ones too (empty at startup).
    const indices = options.engines?.indices ?? (() => ({}));
    yield* Activities.run(options.registry, "startup", { memo, settings, indices: indices() }).pipe(
      Effect.mapError(
        (error) =>
          new OperatorError({
            reason: "StartupFailed",
            message: `The startup activity has failed: ${error.message}`,
            cause: error,
          }),
      ),
    );
    if (options.engines?.spawning === undefined && options.registry.spawning.length > 0) {
      yield* Effect.logWarning(
        "Daemons and timers are registered, but no spawning engine runs them: they are ignored.",
      );
    }
    const poster = yield* Posting.make;
    const events = Posting.events(poster, () => settings);
    yield* Posting.registerAmbient(events);
    const loggers = yield* Logger.CurrentLoggers;
    const bridged = new Set([...loggers, Posting.bridge(poster, () => settings)]);
    const cleanup = Effect.suspend(() =>
      Activities.run(options.registry, "cleanup", { memo, settings, indices: indices() }),
    ).pipe(Effect.catch((error) => Effect.logError(`The cleanup activity has failed: ${error.message}`)));
    const scanned = yield* Deferred.make<void>();
    const processors = new Map<string, Processing.ResourceProcessor>();
    const started = [scanned, ...(options.ready === undefined ? [] : [options.ready])];
    const watching = yield* Watching.make;
    const orchestration = Orchestrator.run({
      registry: options.registry,
      clusterwide: mode.clusterwide,
      namespaces: mode.namespaces,
      memo,
      engines: options.engines,
      lifecycle: options.lifecycle,
      onStarted: Effect.forEach(started, (d) => Deferred.succeed(d, undefined), { discard: true }),
      processors,
      watching,
    });
    const context: RootTasks.RootTaskContext = {
      registry: options.registry,
      settings,
      memo,
      scanned: Deferred.await(scanned),
      memoOf: RootTasks.memoLookup(processors),
      indices,
      watching: watching.watching,
    };
    const tasks = (options.tasks ?? []).map((task) =>
      task(context).pipe(
        Effect.mapError(
          (error) => new OperatorError({ reason: "TaskFailed", message: error.message, cause: error }),
        ),
      ),
    );
    // A failing task stops the others and the orchestration; the orchestration always stops first
    // (its queues drain), then the engines exit, then the root tasks (peering records and leases
    // are withdrawn only after the work they guard); cleanup runs after all stopped.
    yield* StopOrder.run({
      foreground: orchestration,
      background: Effect.all(tasks, { concurrency: "unbounded", discard: true }),
      stopping: Effect.flatMap(Effect.service(StopNotice), (notice) =>
        notice.signal === undefined
          ? Effect.logInfo("Stop-flag is raised. Operator is stopping.")
          : Effect.void,
      ),
      between: options.engines?.exiting,
    }).pipe(
      Effect.provideService(Logger.CurrentLoggers, bridged),
      Effect.provideService(Posting.CurrentEvents, events),
      Effect.ensuring(cleanup),
    );
  });

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

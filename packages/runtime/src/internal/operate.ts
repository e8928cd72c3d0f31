/**
 * The operator's body once its options and settings are checked: the startup activity, then the
 * orchestration of the watches beside the root tasks, stopped in order (the orchestration, the
 * engines' exit, the root tasks), then the cleanup activity. `Operator.run` calls it.
 */
import type { KubeApi } from "@kopf/client";
import type { Memo } from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import type { NamespaceObserver } from "@kopf/watcher";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import type * as Scope from "effect/Scope";
import * as Activities from "../execution/Activities.ts";
import * as Orchestrator from "../Orchestrator.ts";
import * as Posting from "../Posting.ts";
import type * as Processing from "../Processing.ts";
import * as RootTasks from "../RootTasks.ts";
import { OperatorError, type OperatorOptions, StopNotice } from "./operatorOptions.ts";
import * as StopOrder from "./stopOrder.ts";
import * as Watching from "./watching.ts";

/** The run mode `Operator.run` settled on: the whole cluster, or these namespaces. */
export interface Mode {
  readonly clusterwide: boolean;
  readonly namespaces: ReadonlyArray<NamespaceObserver.Pattern>;
}

/**
 * Runs the operator's body with checked options and settings, until interrupted.
 *
 * @example
 * ```ts
 * yield* operate(options, { clusterwide: true, namespaces: [] }, {}, settings)
 * ```
 */
export const operate = (
  options: OperatorOptions,
  mode: Mode,
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

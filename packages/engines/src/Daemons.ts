/**
 * The daemons-and-timers engine (Kopf's `spawn_daemons`, `match_daemons`, `stop_daemons`,
 * `daemon_killer`, docs/behaviour/daemons-timers.md): plugged into the runtime's spawning seam, it keeps one runner per
 * object × daemon/timer, spawned in the first cycle the handler matches the object, never twice,
 * and not again once it finished on its own ("forever stopped" for this object in this process).
 *
 * Each cycle: the live body is refreshed (and, on an essential change, the idle countdown of
 * timers reset); for an object being deleted every runner is stopped with `resource-deleted`;
 * otherwise runners whose handler no longer matches are stopped with `filters-mismatch` and the
 * missing ones spawned — decided as values by the pure `internal/spawning.ts`, performed here in
 * order. Stopping is multi-cycle (signal, cancel after the backoff, abandon after
 * the timeout, or poll): the delays returned keep the object's finalizer and bring the object
 * back for the next check. On pause (peering) every runner is stopped with `operator-pausing`
 * and respawned by later events once resumed; on operator exit (closing the engine's scope) all
 * are stopped at once with `operator-exiting` in a single-shot procedure. The stopping itself is
 * `internal/runnerStops.ts`.
 */
import type { KubeApi } from "@kopf/client";
import type { DaemonStoppingReason, SpawningHandler } from "@kopf/registry";
import { Handler } from "@kopf/registry";
import type { Engines } from "@kopf/runtime";
import { Body, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import type * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Scope from "effect/Scope";
import * as EngineMetrics from "./EngineMetrics.ts";
import * as LiveBody from "./internal/LiveBody.ts";
import { type Runner, stopAll, stopOnce } from "./internal/runnerStops.ts";
import * as Runners from "./internal/runners.ts";
import * as Stopper from "./internal/Stopper.ts";
import * as Spawning from "./internal/spawning.ts";

interface ObjectDaemons {
  readonly live: LiveBody.LiveBody;
  readonly runners: Map<string, Runner>;
  readonly forever: Set<string>;
  lastChange: number;
}

/** The engine: the spawning seam plus pausing for peering. */
export interface DaemonsEngine {
  /** For `Engines.spawning`. */
  readonly spawning: (input: Engines.SpawningInput) => Effect.Effect<Engines.SpawningResult>;
  /** Stops every runner with `operator-pausing`; new events spawn nothing until {@link resume}. */
  readonly pause: Effect.Effect<void>;
  readonly resume: Effect.Effect<void>;
  /**
   * Stops (single-shot, waiting for them to exit) the runners of the objects whose memory key
   * `kept` rejects: scaled out, daemons and timers run only where their object is handled.
   */
  readonly disown: (kept: (key: string) => boolean, reason: DaemonStoppingReason) => Effect.Effect<void>;
  /**
   * Stops every runner with `operator-exiting` (single-shot, waiting for them to exit), as the
   * scope's close does; for `Engines.exiting`, so daemons stop before peering and leases end.
   */
  readonly exit: Effect.Effect<void>;
  /** The running runners by object key (for tests and diagnostics). */
  readonly running: () => ReadonlyMap<string, ReadonlyArray<string>>;
}

/**
 * Creates the engine in the current scope; closing the scope stops every runner (operator exit).
 *
 * @example
 * ```ts
 * const daemons = yield* Daemons.make
 * yield* Operator.run({ registry, namespaces: ["ns1"], engines: { spawning: daemons.spawning } })
 * ```
 */
export const make: Effect.Effect<DaemonsEngine, never, Scope.Scope> = Effect.gen(function* () {
  const objects = new Map<string, ObjectDaemons>();
  // The runners live in a child scope closed after the graceful stop below (finalizers run in
  // reverse order): on operator exit they are stopped first, and only leftovers are interrupted.
  const scope = yield* Scope.fork(yield* Effect.scope, "parallel");
  let paused = false;

  const spawn = (object: ObjectDaemons, handler: SpawningHandler, input: Engines.SpawningInput) =>
    Effect.gen(function* () {
      const services = (yield* Effect.context<never>()) as Context.Context<KubeApi>;
      const runner: Runner = {
        handler,
        stopper: Stopper.make(services as Context.Context<never>),
        exited: Deferred.makeUnsafe<void>(),
        fiber: undefined,
        abandoned: false,
      };
      const runnerInput: Runners.RunnerInput = {
        handler,
        cause: input.cause,
        live: object.live,
        stopper: runner.stopper,
        lastChange: () => object.lastChange,
      };
      const loop =
        handler._tag === "TimerHandler"
          ? Runners.timer({ ...runnerInput, handler })
          : Runners.daemon(runnerInput);
      const title = Handler.describe(handler);
      const labels = {
        resource: Resource.toString(input.cause.resource),
        handler: handler.id,
        kind: handler._tag === "TimerHandler" ? ("timer" as const) : ("daemon" as const),
      };
      const body = EngineMetrics.runner(labels, 1).pipe(
        Effect.andThen(loop),
        Effect.ensuring(
          Effect.gen(function* () {
            yield* EngineMetrics.runner(labels, -1);
            if (runner.stopper.isSet()) {
              yield* Effect.logDebug(`${title} has exited on request and will not be retried or restarted.`);
            } else {
              object.forever.add(handler.id);
              yield* Effect.logDebug(`${title} has exited on its own and will not be retried or restarted.`);
            }
            if (object.runners.get(handler.id) === runner) object.runners.delete(handler.id);
            yield* Deferred.succeed(runner.exited, undefined);
          }),
        ),
        Effect.provideContext(services),
      );
      object.runners.set(handler.id, runner);
      runner.fiber = yield* Effect.forkIn(body, scope);
    });

  const spawning = (input: Engines.SpawningInput): Effect.Effect<Engines.SpawningResult> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis;
      const { key, event, cause } = input;
      let object = objects.get(key);
      if (object === undefined) {
        object = {
          live: LiveBody.make(event.object),
          runners: new Map(),
          forever: new Set(),
          lastChange: now,
        };
        objects.set(key, object);
      } else {
        object.live.update(event.object);
        if (cause.reset) object.lastChange = now;
      }
      const runners = object.runners;
      const actions = Spawning.decide({
        gone: event.type === "DELETED",
        deleting: Body.deletionTimestamp(event.object) !== undefined,
        handlers: input.handlers,
        cause,
        forever: object.forever,
        running: [...runners.keys()],
      });
      const runnersOf = (ids: ReadonlyArray<string>) =>
        ids.flatMap((id) => {
          const runner = runners.get(id);
          return runner === undefined ? [] : [runner];
        });
      let delays: ReadonlyArray<number> = [];
      for (const action of actions) {
        switch (action._tag) {
          case "Forget":
            objects.delete(key);
            break;
          case "Spawn":
            yield* spawn(object, action.handler, input);
            break;
          case "Stop":
            if (!action.background) {
              delays = [...delays, ...(yield* stopAll(runnersOf(action.ids), action.reason))];
              break;
            }
            // Gone from the cluster: nothing holds the object any more; stop its runners in the background.
            for (const runner of runnersOf(action.ids)) {
              yield* Effect.forkIn(stopOnce(runner, action.reason), scope);
            }
            break;
          case "StopIfPaused":
            if (paused) delays = [...delays, ...(yield* stopAll(runnersOf(action.ids), "operator-pausing"))];
            break;
        }
      }
      const excluded = new Set(object.forever);
      return { delays, excluded };
    });

  const all = () => [...objects.values()].flatMap((object) => [...object.runners.values()]);
  // Each runner is stopped for the exit once: by `exit` (the runtime's `exiting`), and by the
  // scope's close for any spawned after it.
  const exit = Effect.suspend(() =>
    Effect.forEach(
      all().filter((runner) => !runner.stopper.has("operator-exiting")),
      (runner) => stopOnce(runner, "operator-exiting"),
      { concurrency: "unbounded", discard: true },
    ),
  );
  yield* Effect.addFinalizer(() => exit);

  return {
    spawning,
    exit,
    pause: Effect.suspend(() => {
      paused = true;
      return Effect.asVoid(stopAll(all(), "operator-pausing"));
    }),
    resume: Effect.sync(() => {
      paused = false;
    }),
    disown: (kept, reason) =>
      Effect.forEach(
        [...objects.entries()]
          .filter(([key]) => !kept(key))
          .flatMap(([, object]) => [...object.runners.values()]),
        (runner) => stopOnce(runner, reason),
        { concurrency: "unbounded", discard: true },
      ),
    running: () =>
      new Map(
        [...objects.entries()]
          .filter(([, object]) => object.runners.size > 0)
          .map(([key, object]) => [key, [...object.runners.keys()]]),
      ),
  };
});

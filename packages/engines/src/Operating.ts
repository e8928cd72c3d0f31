/**
 * The operator with every engine (Kopf's full `spawn_tasks`): the runtime's `Operator.run` with
 * the daemons-and-timers and indexing engines plugged into its seams, peering (a root task, so
 * with the peering settings the startup handlers left; unless standalone: a pause stops the
 * watches and the daemons, nothing is watched before it has started, and a namespace that
 * appears is watched only after its peering has started — paused first, if mandatory), the health endpoint
 * (`livenessEndpoint`, a root task) served once the startup handlers are done, and the Prometheus
 * metrics endpoint (`metricsEndpoint`, a root task; without it, no metrics are recorded unless
 * `recordMetrics` asks for them); the options' own
 * root `tasks` (e.g. admission) run too. Traces are exported when the `OTEL_*` environment
 * configures it (`node/Tracing.ts`), and the queues' cycle limits adapt to this process's event
 * loop (`LoopUtilization` of `@kopf/runtime`, `queueing.adaptiveCycleLimit`). The `kopf` facade,
 * `kopf run` and `KopfRunner` run this with admission among the tasks; `Operator.run` alone is the
 * bare runtime.
 *
 * On exit, the watches stop and the running handlers finish first, then the daemons and timers
 * are stopped with `operator-exiting` (the runtime's `exiting` seam), then the root tasks end
 * (peering records and leases are withdrawn only now, so no peer or standby takes over work
 * still in flight), then the cleanup activity runs.
 */
import { type KubeApi, MetricRecording } from "@kopf/client";
import {
  type Engines,
  LoopUtilization,
  Operator,
  OperatorError,
  Probes,
  type RootTasks,
} from "@kopf/runtime";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import type * as Scope from "effect/Scope";
import * as SubscriptionRef from "effect/SubscriptionRef";
import * as Daemons from "./Daemons.ts";
import * as EngineMetrics from "./EngineMetrics.ts";
import * as Indexing from "./Indexing.ts";
import * as Liveness from "./Liveness.ts";
import * as MetricsEndpoint from "./MetricsEndpoint.ts";
import * as Environment from "./node/Environment.ts";
import * as LivenessServer from "./node/LivenessServer.ts";
import * as MetricsServer from "./node/MetricsServer.ts";
import * as Tracing from "./node/Tracing.ts";
import * as Peering from "./Peering.ts";
import * as Scaling from "./Scaling.ts";

/** The engines of one operator, for embedding them into a custom composition. */
export interface OperatorEngines {
  readonly daemons: Daemons.DaemonsEngine;
  readonly indexing: Indexing.IndexingEngine;
  /** The runtime's seams, ready to pass as `Operator.run({ engines })`. */
  readonly engines: Engines.Engines;
}

/**
 * Creates the engines for a registry in the current scope.
 *
 * @example
 * ```ts
 * const { engines } = yield* Operating.makeEngines(registry)
 * yield* Operator.run({ registry, clusterwide: true, engines })
 * ```
 */
export const makeEngines = (
  registry: Operator.OperatorOptions["registry"],
): Effect.Effect<OperatorEngines, never, Scope.Scope> =>
  Effect.gen(function* () {
    const daemons = yield* Daemons.make;
    const indexing = yield* Indexing.make(registry);
    return {
      daemons,
      indexing,
      engines: {
        spawning: daemons.spawning,
        indexing: indexing.indexing,
        indexed: indexing.indexed,
        indexIdle: indexing.indexIdle,
        indices: indexing.indices,
        listing: indexing.listing,
        listed: indexing.listed,
        exiting: daemons.exit,
      },
    };
  });

/**
 * Runs the operator with all engines until interrupted (a graceful stop).
 *
 * @example
 * ```ts
 * yield* Operating.run({ registry, namespaces: ["default"] }) // provide a KubeApi; interrupt to stop
 * ```
 */
export const run = (options: Operator.OperatorOptions): Effect.Effect<void, OperatorError, KubeApi> =>
  runWithEngines(options).pipe(
    Effect.provide(Layer.mergeAll(Tracing.layer(), LoopUtilization.layer)),
    // Metrics nobody can read (no endpoint serves them) are not recorded: their work is skipped.
    Effect.provideService(
      MetricRecording.Recording,
      options.recordMetrics ?? options.metricsEndpoint !== undefined,
    ),
  );

const runWithEngines = (options: Operator.OperatorOptions): Effect.Effect<void, OperatorError, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const endpoint =
        options.livenessEndpoint === undefined ? undefined : Liveness.parseEndpoint(options.livenessEndpoint);
      if (endpoint !== undefined && Result.isFailure(endpoint)) {
        return yield* new OperatorError({ reason: "InvalidOptions", message: endpoint.failure.message });
      }
      const metricsAt =
        options.metricsEndpoint === undefined
          ? undefined
          : MetricsEndpoint.parseEndpoint(options.metricsEndpoint);
      if (metricsAt !== undefined && Result.isFailure(metricsAt)) {
        return yield* new OperatorError({ reason: "InvalidOptions", message: metricsAt.failure.message });
      }
      const made = yield* makeEngines(options.registry);
      const engines = made.engines;
      // One identity for the Leases and the peering records (`POD_ID` when set).
      const identity = options.identity ?? (yield* Environment.identity(false));
      const scaling = yield* Scaling.prepare(options);
      // Peering starts once the startup handlers are done, with the settings they left (Kopf's
      // `settings.peering.*` in startup handlers); until it has its own pause of the watching,
      // nothing is watched.
      const starting = yield* SubscriptionRef.make(true);
      const peering: RootTasks.RootTask = (context) =>
        peer({ ...options, identity }, context, made.daemons, starting);
      // The endpoint is a root task: it answers only once the startup handlers are done, with
      // every index; failing to serve it stops the operator.
      const liveness: ReadonlyArray<RootTasks.RootTask> =
        endpoint === undefined
          ? []
          : [
              (context) =>
                Effect.gen(function* () {
                  const prober = yield* Probes.make(context.registry, {
                    memo: context.memo,
                    indices: context.indices(),
                  });
                  yield* LivenessServer.serve(endpoint.success, prober.results, scaling.role);
                  return yield* Effect.never;
                }).pipe(Effect.scoped),
            ];
      // The metrics endpoint is a root task too (served once the startup handlers are done, with
      // what they recorded); failing to serve it stops the operator.
      const metrics: ReadonlyArray<RootTasks.RootTask> =
        metricsAt === undefined
          ? []
          : [() => Effect.scoped(Effect.andThen(MetricsServer.serve(metricsAt.success), Effect.never))];
      return yield* Operator.run({
        ...options,
        engines: {
          ...engines,
          paused: SubscriptionRef.changes(starting),
          ownership: scaling.ownership,
          ...options.engines,
        },
        tasks: [
          peering,
          ...liveness,
          ...metrics,
          ...scaling.tasks(identity, made.daemons),
          ...(options.tasks ?? []),
        ],
      });
    }),
  );

/**
 * Peers with the peering settings as the startup handlers left them (nothing to do when
 * standalone: the operator is resumed). Peering gets a pause of the runtime's watching (set at
 * first if mandatory) and follows the namespaces the runtime serves (patterns included); once
 * its pause exists, `starting` (the engines' pause, set until now) is cleared.
 */
const peer = (
  options: Operator.OperatorOptions,
  context: RootTasks.RootTaskContext,
  daemons: Daemons.DaemonsEngine,
  starting: SubscriptionRef.SubscriptionRef<boolean>,
) =>
  Effect.gen(function* () {
    const settings = context.settings.peering;
    if (settings.standalone) {
      yield* EngineMetrics.peering(false);
      return yield* SubscriptionRef.set(starting, false);
    }
    // Scaled-out replicas are one operator to their peers: they share one presence record
    // (named after their Lease), so they never see each other as conflicting same-priority peers.
    const scaling = context.settings.scaling;
    const identity =
      scaling.mode === "single"
        ? (options.identity ?? (yield* Environment.identity(false)))
        : `${Scaling.leaseNamespace(scaling, options.namespaces)}/${scaling.leaseName}`;
    const pause = yield* context.watching.pause(settings.mandatory);
    yield* SubscriptionRef.set(starting, false);
    const onPause = (paused: boolean) =>
      Effect.andThen(
        Effect.andThen(EngineMetrics.peering(paused), pause.set(paused)),
        paused ? daemons.pause : daemons.resume,
      );
    yield* Peering.run(
      {
        identity,
        name: settings.name,
        priority: settings.priority,
        lifetime: settings.lifetime,
        stealth: settings.stealth,
        mandatory: settings.mandatory,
        clusterwide: settings.clusterwide,
      },
      { follow: context.watching.follow, onPause },
    );
  }).pipe(Effect.scoped);

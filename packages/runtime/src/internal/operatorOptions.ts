/**
 * What the operator is given to run (its options), how it refuses to run (`OperatorError`), and
 * the notice a signal handler leaves when it stops it. Re-exported by `Operator.ts`; a module of
 * its own so that the operator's body (`operate.ts`) and its entry points share them without an
 * import cycle.
 */
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import type { Settings } from "@kopf/settings";
import type { NamespaceObserver } from "@kopf/watcher";
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import type * as Deferred from "effect/Deferred";
import type * as Engines from "../Engines.ts";
import type * as RootTasks from "../RootTasks.ts";

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

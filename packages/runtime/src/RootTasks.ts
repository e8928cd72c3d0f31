/**
 * Extra root tasks of the operator (Kopf's `spawn_tasks` list beyond the orchestrator, spec
 * §7.8): admission webhooks, the liveness endpoint and the like run beside the watchers. A task
 * starts once the startup handlers have succeeded — so it sees the settings as they left them —
 * runs concurrently with the orchestration, and is interrupted when the operator stops, before
 * the cleanup handlers run. A task that fails stops the operator with that failure; one that
 * completes simply ends (the operator goes on).
 */
import { ResourceMemory } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { Memo, Registry } from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { type RawBody, Resource } from "@kopf/structs";
import type { Effect } from "effect";
import type * as Processing from "./Processing.ts";

/** What a root task gets from the running operator. */
export interface RootTaskContext {
  readonly registry: Registry.Registry<any>;
  /** The operator's settings as the startup handlers left them (the same, live object). */
  readonly settings: OperatorSettings;
  /** The operator's memo (shared with activities; objects get shallow copies). */
  readonly memo: Memo;
  /** Completes once the initial scan of the cluster's resources is done and the watches start. */
  readonly scanned: Effect.Effect<void>;
  /** The per-object memo of an object the operator has seen (by its resource and uid), if any. */
  readonly memoOf: (resource: Resource.Resource, body: RawBody) => Memo | undefined;
  /** The operator's indices by name (empty without the indexing engine). */
  readonly indices: () => Readonly<Record<string, unknown>>;
}

/** A failure of a root task, as the operator reports it (any error with a message). */
export interface RootTaskFailure {
  readonly message: string;
}

/**
 * A root task: runs until interrupted (or completes early, e.g. when it has nothing to do).
 *
 * @example
 * ```ts
 * const heartbeat: RootTasks.RootTask = ({ settings }) =>
 *   Effect.forever(Effect.andThen(Effect.logDebug(`alive: ${settings.peering.name}`), Effect.sleep("1 minute")))
 * yield* Operator.run({ registry, clusterwide: true, tasks: [heartbeat] })
 * ```
 */
export type RootTask = (context: RootTaskContext) => Effect.Effect<void, RootTaskFailure, KubeApi>;

/**
 * The memo lookup over the processors of an orchestrator (`Resource.format` → processor).
 *
 * @example
 * const memoOf = RootTasks.memoLookup(processors)
 * memoOf(resource, body) // the memo the handlers of that object share, or undefined
 */
export const memoLookup =
  (processors: ReadonlyMap<string, Processing.ResourceProcessor>): RootTaskContext["memoOf"] =>
  (resource, body) =>
    processors.get(Resource.format(resource))?.memories.get(ResourceMemory.keyOf(body))?.memo;

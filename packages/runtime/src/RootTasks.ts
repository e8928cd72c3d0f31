/**
 * Extra root tasks of the operator (Kopf's `spawn_tasks` list beyond the orchestrator, spec
 * docs/behaviour/operator.md#tasks-start-up-and-shutdown): admission webhooks, the liveness endpoint and the like run beside the watchers. A task
 * starts once the startup handlers have succeeded — so it sees the settings as they left them —
 * runs concurrently with the orchestration, and is interrupted when the operator stops, before
 * the cleanup handlers run. A task that fails stops the operator with that failure; one that
 * completes simply ends (the operator goes on).
 *
 * Tasks that must act before the operator watches a namespace (peering: a mandatory peering
 * pauses the operator before a new namespace is watched) use the context's {@link Watching}.
 */
import { ResourceMemory } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import type { Memo, Registry } from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { type RawBody, Resource } from "@kopf/structs";
import type * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type * as Stream from "effect/Stream";
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
  /** The served namespaces and the pauses of the operator's watching. */
  readonly watching: Watching;
}

/** A set of served namespaces; `null` alone means cluster-wide. */
export type Namespaces = ReadonlySet<string | null>;

/**
 * The operator's watching as root tasks take part in it (Kopf's `insights.namespaces` and
 * `operator_paused`): the namespaces it serves, as its one namespace observer sees them
 * (patterns included, as namespaces come and go), and pauses that stop all watching while set.
 * A follower sees every new set before the watches do, so it can set a pause first: no handler
 * runs for an object in a new namespace until the follower has decided about it.
 */
export interface Watching {
  /**
   * The served namespaces the watches follow (`{null}` cluster-wide): the current set first
   * (once the namespaces are first known), then every change, each once every follower has
   * followed it.
   */
  readonly namespaces: Stream.Stream<Namespaces>;
  /**
   * Follows the served namespaces in step with the watching, until interrupted: `admit` gets
   * the set observed when it starts (if any yet) and every later one, in order, one at a time;
   * the watches follow a set only after every follower's `admit` has completed for it (a
   * follower that stops is no longer waited for). A pause set within `admit` is in force before
   * the set's new namespaces are watched.
   *
   * @example
   * ```ts
   * yield* context.watching.follow((namespaces) => Effect.logDebug(`serving ${[...namespaces]}`))
   * ```
   */
  readonly follow: <E, R>(
    admit: (namespaces: Namespaces) => Effect.Effect<void, E, R>,
  ) => Effect.Effect<void, E, R>;
  /**
   * A pause of the operator's watching, set at first if `initial` (Kopf's pre-activated toggle),
   * removed when the scope closes: while any pause is set, nothing is watched (the watches stop,
   * their queues end gracefully; they start again with a fresh listing once all are cleared).
   *
   * @example
   * ```ts
   * const pause = yield* context.watching.pause(true)
   * yield* pause.set(false) // watching may go on (unless another pause is set)
   * ```
   */
  readonly pause: (initial: boolean) => Effect.Effect<Pause, never, Scope.Scope>;
}

/** One pause of the operator's watching (see {@link Watching.pause}). */
export interface Pause {
  /** Sets (`true`) or clears (`false`) this pause. */
  readonly set: (paused: boolean) => Effect.Effect<void>;
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

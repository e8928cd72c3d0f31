/**
 * The seams where engines plug into the processing of every event
 * (docs/behaviour/processing.md#per-event, docs/behaviour/processing.md#cause-order,
 * docs/behaviour/daemons-timers.md, docs/behaviour/indexing.md): indexing, spawning (daemons and
 * timers), pausing and ownership. The runtime alone registers no engine and processing skips
 * those steps; `@kopf/engines` implements these interfaces and passes them to `Operator` (and
 * from there to `Processing`), without changes to processing itself.
 *
 * The finalizer decision already considers spawning handlers (a matching daemon or timer needs
 * the finalizer, like a mandatory `on.delete` handler): the spawning engine only reports which
 * of them are stopped forever (`excluded`) and its delays.
 */
import type { SpawningCause } from "@kopf/causes";
import type { HandlerId, SpawningHandler } from "@kopf/registry";
import type { RawEvent, Resource, ShardRange } from "@kopf/structs";
import type * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type * as Stream from "effect/Stream";

/** What the indexing engine gets for every event, before anything else runs. */
export interface IndexingInput {
  readonly resource: Resource.Resource;
  readonly event: RawEvent;
  /** The key of the object's memory (its uid, `""` when absent). */
  readonly key: string;
}

/** What the spawning engine gets for every event (except for objects in stealth mode). */
export interface SpawningInput {
  readonly resource: Resource.Resource;
  readonly event: RawEvent;
  readonly key: string;
  readonly cause: SpawningCause.SpawningCause;
  /** The daemons and timers of the resource kind (`registry.spawningFor(resource)`). */
  readonly handlers: ReadonlyArray<SpawningHandler>;
}

/** What the spawning engine reports back. */
export interface SpawningResult {
  /** Seconds until the engine wants the object processed again (e.g. daemons being stopped). */
  readonly delays: ReadonlyArray<number>;
  /** Daemons and timers stopped forever for this object: they no longer need the finalizer. */
  readonly excluded: ReadonlySet<HandlerId.HandlerId>;
}

/** A watch (resource × namespace, `null` cluster-wide) as the orchestrator runs it. */
export interface WatchCell {
  readonly resource: Resource.Resource;
  readonly namespace: string | null;
}

/**
 * Which objects this replica handles, for operators scaled out over several replicas (leader
 * election, sharding). Objects are named by their memory key (`IndexingInput.key`, the uid).
 * Indexing runs for every object whatever the ownership, so indices stay filled on standbys.
 */
export interface Ownership {
  /**
   * Starts a processing cycle of the object if this replica may start new work on it now:
   * `true`, and the object is busy until {@link release}; `false`, and nothing else runs.
   */
  readonly claim: (key: string) => Effect.Effect<boolean>;
  /** Whether a claimed object may still be patched (fencing: a lost lease stops patching). */
  readonly holds: (key: string) => Effect.Effect<boolean>;
  /** Ends the cycle {@link claim} started. */
  readonly release: (key: string) => Effect.Effect<void>;
  /**
   * Every gain of ownership from now on, as a predicate of the gained keys: the runtime
   * processes its last seen state of those objects again, without relisting (takeover).
   */
  readonly gains: Effect.Effect<Stream.Stream<(key: string) => boolean>, never, Scope.Scope>;
  /**
   * The hash ranges (of the uid) this replica runs, current value first, then every change
   * (sharding only). With it, resources are watched by shards as `settings.scaling.watch`
   * says (see `ShardWatching`); without it, every object is watched.
   */
  readonly shards?: Stream.Stream<ReadonlyArray<ShardRange.ShardRange>> | undefined;
}

/** The pluggable engines. Every member is optional; without them the steps do nothing. */
export interface Engines {
  /** Indexes the object (docs/behaviour/indexing.md); runs first for every event. */
  readonly indexing?: ((input: IndexingInput) => Effect.Effect<void>) | undefined;
  /** Completes when the whole operator is indexed (docs/behaviour/watching.md#orchestration); processing waits for it after indexing. */
  readonly indexed?: Effect.Effect<void> | undefined;
  /**
   * Whether indexing and its wait would do nothing for an event of this resource now: no indexing
   * handlers for it, and the operator indexed already. A cycle then has no index step at all, and
   * runs no effect for it.
   */
  readonly indexIdle?: ((resource: Resource.Resource) => boolean) | undefined;
  /** The operator's indices by name, for handler contexts (indices override same-named fields). */
  readonly indices?: (() => Readonly<Record<string, unknown>>) | undefined;
  /** A watch starts (before its listing), for the indexing readiness (docs/behaviour/indexing.md). */
  readonly listing?: ((cell: WatchCell) => Effect.Effect<void>) | undefined;
  /** A watch finished a listing of these objects (their memory keys, as in `IndexingInput.key`). */
  readonly listed?: ((cell: WatchCell, keys: ReadonlyArray<string>) => Effect.Effect<void>) | undefined;
  /** While the latest value is `true`, no resource is watched (peering's pause, docs/behaviour/peering.md#reactions). */
  readonly paused?: Stream.Stream<boolean> | undefined;
  /** Which objects this replica handles; all of them when absent. */
  readonly ownership?: Ownership | undefined;
  /** Spawns, keeps or stops daemons and timers (docs/behaviour/daemons-timers.md). */
  readonly spawning?: ((input: SpawningInput) => Effect.Effect<SpawningResult>) | undefined;
  /**
   * Runs on exit once the watches have stopped and the queues drained, before the root tasks
   * (peering, leases) are interrupted: e.g. stopping the daemons, so that no peer or standby
   * starts its own while these still run.
   */
  readonly exiting?: Effect.Effect<void> | undefined;
}

/** No engines: the runtime alone (indexing, spawning, pausing and ownership steps skipped). */
export const none: Engines = {};

/**
 * Orchestration of the watchers (Kopf's `orchestrator` and `watcher`/`worker` wiring, spec
 * docs/behaviour/watching.md#discovery, docs/behaviour/watching.md#namespaces, docs/behaviour/watching.md#orchestration): the resources come from the resource observer's insights (kept current as CRDs
 * come and go), the namespaces from the namespace observer (patterns, or cluster-wide); one
 * watch per resource × namespace feeds the per-object queues of its stream, whose workers run
 * {@link Processing} for each event. Obsolete watches are stopped first, missing ones started.
 *
 * Stopping a watch ends its queues gracefully: queued events are processed within
 * `queueing.exitTimeout` seconds, sleeping workers are woken, the rest is interrupted.
 *
 * The namespaces pass a gate on their way to the watches (the operator's `RootTasks.Watching`):
 * a new set is watched only once every follower (peering) has followed it, and nothing is
 * watched while a pause is set (the followers', or the engines' `paused`), as Kopf starts a
 * namespace's peering, pre-activating its pause, before that namespace's watchers.
 */
import { ResourceMemory } from "@kopf/causes";
import { KubeApi } from "@kopf/client";
import type { Lifecycle, Memo, Registry } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { type RawBody, Resource, Selector, ShardRange } from "@kopf/structs";
import {
  Insights,
  ListWatch,
  NamespaceObserver,
  ResourceObserver,
  Watcher,
  WatchMatrix,
} from "@kopf/watcher";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type * as Engines from "./Engines.ts";
import * as ItemBatches from "./internal/itemBatches.ts";
import * as Watching from "./internal/watching.ts";
import { LoopLoad } from "./LoopLoad.ts";
import * as ObjectQueues from "./ObjectQueues.ts";
import * as Processing from "./Processing.ts";
import * as ShardWatching from "./ShardWatching.ts";

/** What to orchestrate. */
export interface OrchestratorOptions {
  readonly registry: Registry.Registry;
  /** Serve the whole cluster. */
  readonly clusterwide: boolean;
  /** Namespace patterns when not cluster-wide. */
  readonly namespaces: ReadonlyArray<NamespaceObserver.Pattern>;
  readonly memo: Memo;
  readonly engines?: Engines.Engines | undefined;
  /** How changing handlers are chosen per cycle; default `asap`. */
  readonly lifecycle?: Lifecycle | undefined;
  /** Called once the first resources and namespaces are known and the watches are starting. */
  readonly onStarted?: Effect.Effect<void> | undefined;
  /**
   * Where the processors of the resource kinds are kept (by `Resource.format`), for callers that
   * look into the objects' memories (root tasks' `memoOf`); default: a private map.
   */
  readonly processors?: Map<string, Processing.ResourceProcessor> | undefined;
  /**
   * The gate of the served namespaces that root tasks follow and pause (the operator's
   * `RootTaskContext.watching`); default: a private one, with no followers and no pauses.
   */
  readonly watching?: Watching.Control | undefined;
}

const NAMESPACES = Resource.make({
  group: "",
  version: "v1",
  plural: "namespaces",
  namespaced: false,
  kind: "Namespace",
});

/**
 * Runs the observers and the matrix of watches until interrupted.
 *
 * @example
 * ```ts
 * yield* Orchestrator.run({ registry, clusterwide: false, namespaces: ["ns1"], memo: {} })
 * ```
 */
export const run = (options: OrchestratorOptions): Effect.Effect<void, never, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const settings = yield* OperatorSettings;
      const watcherOptions = Watcher.optionsFromSettings(settings);
      const resources = yield* ResourceObserver.make(api, (crd) => ListWatch.fromKubeApi(api, crd, null), {
        selectors: Insights.selectorSetsOf(options.registry),
        scanningDisabled: settings.scanning.disabled,
        watcher: watcherOptions,
      });
      const observed = yield* SubscriptionRef.get(resources.observed);
      const namespacesResource = Selector.select(Selector.NAMESPACES, observed.resources)[0] ?? NAMESPACES;
      const namespaces = yield* NamespaceObserver.make(ListWatch.fromKubeApi(api, namespacesResource, null), {
        clusterwide: options.clusterwide,
        namespaces: options.namespaces,
        scanningDisabled: settings.scanning.disabled,
        watcher: watcherOptions,
      });

      const processors = options.processors ?? new Map<string, Processing.ResourceProcessor>();
      const processorOf = (resource: Resource.Resource) => {
        const key = Resource.toString(resource);
        let processor = processors.get(key);
        if (processor === undefined) {
          processor = Processing.make({
            registry: options.registry,
            resource,
            memo: options.memo,
            engines: options.engines,
            lifecycle: options.lifecycle,
          });
          processors.set(key, processor);
        }
        return processor;
      };

      // The event loop's load, where the context has it: the queues' cycle limits adapt to it.
      const load = yield* Effect.serviceOption(LoopLoad);
      const spawn = (cell: WatchMatrix.Cell) =>
        Effect.scoped(
          Effect.gen(function* () {
            const current = yield* OperatorSettings;
            const processor = processorOf(cell.resource);
            const name = `${Resource.toString(cell.resource)}${cell.namespace === null ? "" : ` in ${cell.namespace}`}`;
            const queues = yield* ObjectQueues.make(
              processor.process,
              {
                idleTimeout: current.queueing.idleTimeout,
                exitTimeout: current.queueing.exitTimeout,
                workerLimit: current.queueing.workerLimit,
                cycleLimit: current.queueing.cycleLimit,
                load: current.queueing.adaptiveCycleLimit ? Option.getOrUndefined(load) : undefined,
                consistencyTimeout: current.persistence.consistencyTimeout,
                name,
                resource: Resource.toString(cell.resource),
              },
              processor.quick,
            );
            yield* Effect.addFinalizer(() => queues.shutdown);
            const engines = options.engines ?? {};
            if (engines.listing !== undefined) yield* engines.listing(cell);
            let listed: Array<string> = []; // the keys of the objects listed since the last listing
            // Scaled out, the last seen state of every object is kept: on a takeover, the objects
            // gained are processed again from it, without relisting.
            const latest = engines.ownership === undefined ? undefined : new Map<string, RawBody>();
            if (engines.ownership !== undefined && latest !== undefined) {
              const gains = yield* engines.ownership.gains;
              yield* Effect.forkScoped(
                Stream.runForEach(gains, (gained) =>
                  Effect.forEach(
                    [...latest].filter(([key]) => gained(key)),
                    ([, object]) => queues.offer({ type: "MODIFIED", object }),
                    { discard: true },
                  ),
                ),
              );
            }
            const shards = engines.ownership?.shards;
            const byShards =
              shards !== undefined &&
              ShardWatching.ownShards(
                current.scaling.watch,
                options.registry.hasHandlers("indexing", cell.resource),
              );
            const items: Stream.Stream<ShardWatching.Item, never, KubeApi> = byShards
              ? ShardWatching.stream(cell.resource, cell.namespace, shards)
              : Watcher.stream(cell.resource, cell.namespace);
            // One item's own work: the events are queued at once (in `fiber`); a new shard watch
            // or the end of a listing may need an effect, which runs before the next item.
            const handle = (
              item: ShardWatching.Item,
              fiber: Fiber.Fiber<unknown, unknown>,
            ): Effect.Effect<void> | undefined => {
              if (item._tag === "Shards") {
                // A new watch over these ranges: what was kept of the others is forgotten.
                listed = [];
                const elsewhere = (key: string) => !ShardRange.contains(item.ranges, ShardRange.fnv1a64(key));
                if (latest !== undefined)
                  for (const key of [...latest.keys()]) if (elsewhere(key)) latest.delete(key);
                return processor.forget(elsewhere);
              }
              if (item._tag === "Listed") {
                const keys = listed;
                listed = [];
                return engines.listed === undefined ? undefined : engines.listed(cell, keys);
              }
              if (item._tag !== "Event") return undefined;
              const key = ResourceMemory.keyOf(item.object);
              if (item.type === null) listed.push(key);
              if (latest !== undefined) {
                if (item.type === "DELETED") latest.delete(key);
                else latest.set(key, item.object);
              }
              queues.offerUnsafe({ type: item.type, object: item.object }, fiber);
              return undefined;
            };
            // A chunk of items in one pass (see `internal/itemBatches.ts`).
            yield* Stream.runForEachArray(items, (batch) => ItemBatches.inOrder(batch, handle));
          }),
        );

      const gate = options.watching ?? (yield* Watching.make);
      // The engines' pause is one of the gate's (set until its stream says otherwise).
      const paused = options.engines?.paused;
      if (paused !== undefined) {
        const pause = yield* gate.watching.pause(true);
        yield* Effect.forkScoped(Stream.runForEach(paused, pause.set));
      }
      yield* Effect.forkScoped(
        Stream.runForEach(SubscriptionRef.changes(namespaces.namespaces), gate.observe),
      );
      if (options.onStarted !== undefined) yield* options.onStarted;
      yield* WatchMatrix.run(
        SubscriptionRef.changes(resources.observed).pipe(Stream.map((o) => o.insights.watched)),
        gate.watchable,
        spawn,
      );
    }),
  );

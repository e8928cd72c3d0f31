/**
 * The list-then-watch stream of one resource in one namespace (or cluster-wide): a never-ending
 * `Stream` of the objects' events, a `Listed` marker after every (re)listing, and `Problem`
 * values for everything that went wrong — errors never end the stream.
 *
 * The decisions (resume, relist, reconnect, backoff) are made by the pure {@link WatchState}
 * machine; this module only performs them: paginated listings, watch requests with bookmarks
 * and the server's `timeoutSeconds`, an inactivity watchdog on `Clock` that reconnects a stream
 * gone quiet, and per-watch metrics (see `internal/watchMetrics.ts`); `internal/watchFeed.ts`
 * steps the inputs through the machine and emits its outputs.
 */
import { KubeApi } from "@kopf/client";
import { OperatorSettings } from "@kopf/settings";
import type { RawBody, Resource, ShardRange } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import { defectFailure, failureOf } from "./internal/events.ts";
import * as KnownObjects from "./internal/knownObjects.ts";
import * as WatchFeed from "./internal/watchFeed.ts";
import * as WatchMetrics from "./internal/watchMetrics.ts";
import type { ApiFailure } from "./ListWatch.ts";
import * as ListWatch from "./ListWatch.ts";
import * as ShardedListing from "./ShardedListing.ts";
import * as WatchState from "./WatchState.ts";

/** What the watcher emits: events (`type: null` while listing), `Listed` markers, `Problem`s. */
export type Item = WatchState.Output<RawBody>;

/** How a watcher behaves. Durations are in seconds, like Kopf's settings. */
export interface Options {
  /** `settings.watching.inactivityTimeout`: reconnect after this much silence; `null` disables. Default 70. */
  readonly inactivityTimeout?: number | null | undefined;
  /** `settings.watching.serverTimeout`: the `timeoutSeconds` of watch requests; `null`: none. */
  readonly serverTimeout?: number | null | undefined;
  /** `settings.watching.reconnectBackoff`: the first pause after a failure. Default 0.1. */
  readonly reconnectBackoff?: number | undefined;
  /** The longest pause between attempts when failures repeat. Default 30. */
  readonly maxBackoff?: number | undefined;
  /** Items per list page (`limit`); `null` lists in one request as Kopf does. Default 500. */
  readonly pageSize?: number | null | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** How many items may wait for a slow consumer before the watcher pauses. Default 1024. */
  readonly bufferSize?: number | undefined;
  /** How often the `last event age` gauge is refreshed. Default 5. */
  readonly ageRefresh?: number | undefined;
  /**
   * After a relisting, report objects that vanished meanwhile (their `DELETED` events were lost
   * with the history) as synthetic `DELETED` events with a skeleton body, before `Listed`.
   * Kopf does not; default `true`.
   */
  readonly synthesizeDeletions?: boolean | undefined;
  /**
   * Only the objects whose `metadata.uid` hashes into these ranges (a sharded operator's share):
   * the server filters them where it can (`ShardedListing` detects it once, at the first
   * listing), and the watcher always drops the others too, so a server without the feature (or
   * a control plane whose replicas differ) changes only the traffic, not the stream.
   */
  readonly shards?: ReadonlyArray<ShardRange.ShardRange> | undefined;
}

/**
 * The watcher options of the operator's settings (`settings.watching.*`): inactivity timeout
 * (a non-positive value disables the watchdog), server timeout and reconnect backoff.
 *
 * @example
 * const options = Watcher.optionsFromSettings(yield* OperatorSettings)
 */
export const optionsFromSettings = (settings: OperatorSettings): Options => ({
  inactivityTimeout: settings.watching.inactivityTimeout > 0 ? settings.watching.inactivityTimeout : null,
  serverTimeout: settings.watching.serverTimeout,
  reconnectBackoff: settings.watching.reconnectBackoff,
});

/** Names for metrics and logs: the resource (e.g. `kopfexamples.v1.kopf.dev`) and namespace. */
export interface Target {
  readonly resource: string;
  readonly namespace: string | null;
}

export { fillKind, toInput } from "./internal/events.ts";

const seconds = (value: number | null | undefined, fallback: number | null): number | null =>
  value === undefined ? fallback : value;

/**
 * The never-ending stream of one watch over the given list/watch calls (the `KubeApi`-bound
 * form is {@link stream}). Interrupting the consumer closes the open request.
 *
 * @example
 * const items = Watcher.fromListWatch(api, { resource: "kopfexamples.v1.kopf.dev", namespace: "ns1" }, {})
 * // Stream<Item>: { _tag: "Event", type: null, object } …, { _tag: "Listed" }, { _tag: "Event", type: "ADDED", … }
 */
export const fromListWatch = <E extends ApiFailure>(
  api: ListWatch.ListWatch<E>,
  target: Target,
  options: Options,
): Stream.Stream<Item> =>
  Stream.callback<Item>(
    (queue) =>
      Effect.gen(function* () {
        const config: WatchState.Config = {
          reconnectBackoffMillis: (options.reconnectBackoff ?? 0.1) * 1000,
          maxBackoffMillis: (options.maxBackoff ?? 30) * 1000,
        };
        const inactivitySetting = seconds(options.inactivityTimeout, 70);
        const inactivity = inactivitySetting !== null && inactivitySetting > 0 ? inactivitySetting : null;
        const serverTimeout = seconds(options.serverTimeout, null);
        const pageSize = seconds(options.pageSize, 500);
        const metrics = WatchMetrics.bind({ resource: target.resource, namespace: target.namespace ?? "" });
        const where = target.namespace === null ? "cluster-wide" : `in ${JSON.stringify(target.namespace)}`;
        const known = options.synthesizeDeletions === false ? null : KnownObjects.make();
        const clock = yield* Clock.Clock;
        let lastSeen = clock.currentTimeMillisUnsafe();

        yield* Effect.forkScoped(
          Effect.forever(
            Effect.gen(function* () {
              yield* Effect.sleep(Math.max(0.001, options.ageRefresh ?? 5) * 1000);
              yield* metrics.age((clock.currentTimeMillisUnsafe() - lastSeen) / 1000);
            }),
          ),
        );

        // The shard filter: the ranges' selector, sent once the server is known to apply it.
        const shard = options.shards === undefined ? undefined : ShardedListing.filterOf(options.shards);
        const feeding = WatchFeed.make({
          config,
          queue,
          known,
          metrics,
          shard,
          name: `${target.resource} ${where}`,
        });
        const { feed, feedChunk, feedPage } = feeding;

        let filtering: ShardedListing.Filtering | undefined;
        const serverSelector = () =>
          filtering?._tag === "ServerSide" && shard?.selector ? { shardSelector: shard.selector } : {};
        const detect = Effect.gen(function* () {
          if (shard === undefined || shard.selector === "" || filtering !== undefined) return;
          const list = (shardSelector: string) =>
            api
              .list({
                limit: 1,
                shardSelector,
                labelSelector: options.labelSelector,
                fieldSelector: options.fieldSelector,
              })
              .pipe(Effect.catchDefect((defect) => Effect.fail(defectFailure(defect))));
          const detected = yield* ShardedListing.detectWith(list, shard.selector);
          if (detected.decided) filtering = detected.filtering;
          yield* Effect.logInfo(
            `Watcher for ${target.resource} ${where}: ${ShardedListing.explain(detected.filtering)}.`,
          );
        });

        const listing = Effect.gen(function* () {
          yield* detect;
          known?.listing();
          let token: string | undefined;
          let resourceVersion: string | undefined;
          do {
            const page = yield* Effect.result(
              api
                .list({
                  limit: pageSize ?? undefined,
                  continue: token,
                  labelSelector: options.labelSelector,
                  fieldSelector: options.fieldSelector,
                  ...serverSelector(),
                })
                .pipe(Effect.catchDefect((defect) => Effect.fail(defectFailure(defect)))),
            );
            if (Result.isFailure(page))
              return yield* feed({ _tag: "ListFailed", failure: failureOf(page.failure) });
            const { metadata, items } = page.success;
            // A page's items arrived together: one reading of the clock for all of them (an empty
            // page has nothing seen).
            if (items !== undefined && items.length > 0) {
              lastSeen = clock.currentTimeMillisUnsafe();
              yield* feedPage(page.success, lastSeen);
            }
            resourceVersion = metadata?.resourceVersion ?? resourceVersion;
            token = metadata?.continue === "" ? undefined : metadata?.continue;
          } while (token !== undefined);
          return yield* feed({ _tag: "Listed", resourceVersion });
        });

        // Inactivity is time spent waiting for the stream's next chunk (not time the consumer
        // takes): `waitingSince` is set while a pull is pending, and one watchdog per connection
        // sleeps until it could have expired, instead of a timed race around every pull.
        let waitingSince: number | undefined;
        const watchdog = (limitMillis: number) =>
          Effect.gen(function* () {
            while (true) {
              const now = clock.currentTimeMillisUnsafe();
              const since = waitingSince;
              if (since !== undefined && now - since >= limitMillis) return;
              yield* Effect.sleep(since === undefined ? limitMillis : since + limitMillis - now);
            }
          });

        const watching = (resourceVersion: string | undefined) =>
          Effect.scoped(
            Effect.gen(function* () {
              const pull = yield* Stream.toPull(
                api.watch({
                  resourceVersion,
                  allowWatchBookmarks: true,
                  timeoutSeconds: serverTimeout ?? undefined,
                  labelSelector: options.labelSelector,
                  fieldSelector: options.fieldSelector,
                  ...serverSelector(),
                }),
              );
              const pulling = Effect.result(
                pull.pipe(Effect.catchDefect((defect) => Effect.fail(defectFailure(defect)))),
              );
              const reading = Effect.gen(function* () {
                while (true) {
                  waitingSince = clock.currentTimeMillisUnsafe();
                  const chunk = yield* pulling;
                  waitingSince = undefined;
                  if (Result.isFailure(chunk)) {
                    const error = chunk.failure;
                    if (Cause.isDone(error)) return yield* feed({ _tag: "StreamEnded" });
                    return yield* feed({ _tag: "StreamFailed", failure: failureOf(error as ApiFailure) });
                  }
                  // A chunk's events arrived together: one reading of the clock for all of them.
                  lastSeen = clock.currentTimeMillisUnsafe();
                  const action = yield* feedChunk(chunk.success, lastSeen);
                  if (action !== undefined) return action;
                }
              });
              if (inactivity === null) return yield* reading;
              const read = yield* Effect.raceFirst(
                Effect.map(reading, Option.some),
                Effect.as(watchdog(inactivity * 1000), Option.none()),
              );
              waitingSince = undefined;
              return Option.isSome(read)
                ? read.value
                : yield* feed({ _tag: "Inactive", seconds: inactivity });
            }),
          );

        let action: WatchState.Action = WatchState.start;
        let afterListing = true;
        while (true) {
          if (action._tag !== "Continue" && action.delayMillis > 0) yield* Effect.sleep(action.delayMillis);
          if (action._tag === "Relist") {
            yield* metrics.relist;
            action = yield* listing;
            afterListing = true;
          } else if (action._tag === "Watch") {
            if (!afterListing) yield* metrics.reconnect;
            afterListing = false;
            action = yield* watching(action.resourceVersion);
          } else {
            action = { _tag: "Watch", resourceVersion: feeding.state().resourceVersion, delayMillis: 0 };
          }
        }
      }),
    { bufferSize: options.bufferSize ?? 1024 },
  );

/**
 * The never-ending watch stream of `resource` in `namespace` (`null`: cluster-wide; always for
 * cluster-scoped resources) through the `KubeApi`, with `settings.watching.*` from the
 * `OperatorSettings` (overridable by `options`).
 *
 * @example
 * const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true })
 * yield* Stream.runForEach(Watcher.stream(pods, "default"), (item) =>
 *   item._tag === "Event" ? Effect.log(item.type, item.object.metadata?.name) : Effect.void)
 */
export const stream = (
  resource: Resource.Resource,
  namespace: string | null,
  options: Options = {},
): Stream.Stream<Item, never, KubeApi> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const settings = yield* OperatorSettings;
      // Cluster-scoped resources are watched cluster-wide whatever the namespace (docs/behaviour/watching.md#list-and-watch).
      const where = resource.namespaced === false ? null : namespace;
      return fromListWatch(
        ListWatch.fromKubeApi(api, resource, where),
        { resource: ListWatch.nameOf(resource), namespace: where },
        { ...optionsFromSettings(settings), ...options },
      );
    }),
  );

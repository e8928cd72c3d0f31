/**
 * What a sharded replica watches of one resource: everything (as a single replica would), or
 * only the objects of the hash ranges it runs. Watching its own shards, the watch follows the
 * ranges: each new set of ranges replaces the watch by one over those ranges (the server filters
 * by `shardSelector` where it can, the watcher always filters too), announced by a `Shards` item
 * before the new watch's listing, so that the consumer forgets what it kept of the old ranges.
 * A range gained is listed by the new watch, so its objects reach the replica only through a
 * listing; no ranges, no watch.
 */

import type { KubeApi } from "@kopf/client";
import type { Settings } from "@kopf/settings";
import { type Resource, ShardRange } from "@kopf/structs";
import { Watcher } from "@kopf/watcher";
import * as Stream from "effect/Stream";

/** A watch's items, plus the ranges each new watch covers. */
export type Item =
  | Watcher.Item
  | { readonly _tag: "Shards"; readonly ranges: ReadonlyArray<ShardRange.ShardRange> };

/**
 * Whether a resource is watched by shards, from `settings.scaling.watch` and whether the
 * resource has `on.index` handlers (an index needs every object to be complete, so `auto`
 * watches those resources whole).
 *
 * @example
 * ownShards("auto", false) // true
 * ownShards("auto", true) // false
 */
export const ownShards = (setting: Settings.ScalingSettings["watch"], indexed: boolean): boolean =>
  setting === "own-shards" || (setting === "auto" && !indexed);

/**
 * The watch of `resource` in `namespace` over the latest ranges of `shards`: restarted at every
 * change of the ranges (equal consecutive values are skipped), nothing while there are none.
 *
 * @example
 * const items = ShardWatching.stream(resource, "ns1", SubscriptionRef.changes(sharding.running))
 */
export const stream = (
  resource: Resource.Resource,
  namespace: string | null,
  shards: Stream.Stream<ReadonlyArray<ShardRange.ShardRange>>,
): Stream.Stream<Item, never, KubeApi> =>
  shards.pipe(
    Stream.changesWith((a, b) => ShardRange.selector(a) === ShardRange.selector(b)),
    Stream.switchMap(
      (ranges): Stream.Stream<Item, never, KubeApi> =>
        Stream.concat(
          Stream.succeed<Item>({ _tag: "Shards", ranges }),
          ranges.length === 0 ? Stream.never : Watcher.stream(resource, namespace, { shards: ranges }),
        ),
    ),
  );

/** Public API of @kopf/watcher: the watch state machine, the watcher stream, discovery and namespaces. */

export * as CrdServing from "./CrdServing.ts";
export * as Discovery from "./Discovery.ts";
export * as Insights from "./Insights.ts";
export * as WatchMetrics from "./internal/watchMetrics.ts";
export * as ListWatch from "./ListWatch.ts";
export * as NamespaceObserver from "./NamespaceObserver.ts";
export * as NamespaceRevision from "./NamespaceRevision.ts";
export * as ObjectKey from "./ObjectKey.ts";
export * as ResourceObserver from "./ResourceObserver.ts";
export * as ShardedListing from "./ShardedListing.ts";
export * as Watcher from "./Watcher.ts";
export * as WatchMatrix from "./WatchMatrix.ts";
export * as WatchState from "./WatchState.ts";

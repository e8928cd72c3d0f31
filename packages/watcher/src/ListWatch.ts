/**
 * The two API calls a watcher makes — one page of a list, one watch request — bound to one
 * resource and one namespace (or cluster-wide), as a small port: the watcher, the namespace
 * observer and the resource observer run on it, `fromKubeApi` binds it to the `KubeApi`
 * service, and tests script it directly.
 */
import type { ApiError, KubeApi } from "@kopf/client";
import { type RawBody, Resource } from "@kopf/structs";
import type * as Effect from "effect/Effect";
import type * as Stream from "effect/Stream";

/** A list/watch failure as the watcher sees it (a `KubeApiError` is one). */
export interface ApiFailure {
  readonly reason: string;
  readonly message: string;
  readonly status?: number | undefined;
  readonly retryAfterSeconds?: number | undefined;
}

/** One page of a list response. */
export interface ListPage {
  readonly kind?: string | undefined;
  readonly apiVersion?: string | undefined;
  readonly metadata?: {
    readonly resourceVersion?: string | undefined;
    readonly continue?: string | undefined;
    /** The shard selector the server applied (see `ShardedListing`). */
    readonly shardInfo?: { readonly selector: string } | undefined;
  };
  readonly items?: ReadonlyArray<RawBody> | undefined;
}

/** A raw watch event as decoded from the stream's JSON lines. */
export interface RawWatchEvent {
  readonly type: string;
  readonly object: RawBody;
}

/** Query options of a list request, already bound to a resource and namespace. */
export interface ListRequest {
  readonly limit?: number | undefined;
  readonly continue?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly shardSelector?: string | undefined;
}

/** Query options of a watch request, already bound to a resource and namespace. */
export interface WatchRequest {
  readonly resourceVersion?: string | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds?: number | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly shardSelector?: string | undefined;
}

/** The two API calls a watcher makes, bound to one resource and namespace. */
export interface ListWatch<E extends ApiFailure = ApiFailure> {
  readonly list: (request: ListRequest) => Effect.Effect<ListPage, E>;
  readonly watch: (request: WatchRequest) => Stream.Stream<RawWatchEvent, E>;
}

/**
 * The list/watch port of `resource` in `namespace` (`null`: cluster-wide) over the `KubeApi`.
 *
 * @example
 * const api = yield* KubeApi
 * const items = Watcher.fromListWatch(ListWatch.fromKubeApi(api, pods, "default"), target, options)
 */
export const fromKubeApi = (
  api: KubeApi["Service"],
  resource: Resource.Resource,
  namespace: string | null,
): ListWatch<ApiError> => ({
  list: (request) => api.list(resource, { namespace, ...request }),
  watch: (request) => api.watch(resource, { namespace, ...request }),
});

/**
 * The name of a resource in logs and metrics: `plural.version.group` (`pods.v1` for the core group).
 *
 * @example
 * nameOf(Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" })) // "kopfexamples.v1.kopf.dev"
 */
export const nameOf = (resource: Resource.Resource): string => Resource.toString(resource);

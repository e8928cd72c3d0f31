/**
 * The Kubernetes API as the operator uses it: one `KubeApi` service with discovery, get, list
 * (one page, or all pages), watch (a `Stream` of raw events), create, patch (merge, JSON,
 * strategic, apply; objects and subresources), delete and events — every call authenticated
 * through the credentials vault (re-login on 401), retried per docs/behaviour/watching.md#api-client on `Clock`, optionally
 * rate-limited, and failing only with `KubeApiError` or `LoginError`.
 *
 * It is built on a `KubeTransport` (live keep-alive pools, or the emulator in-process) and reads
 * `OperatorSettings.networking`/`watching`/`posting` at each call.
 */
import type { ObjectReference, RawBody, RawEventType, Resource } from "@kopf/structs";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Stream from "effect/Stream";
import type { GroupVersionResources } from "./ApiResources.ts";
import type { EventSpec } from "./Events.ts";
import { makeClient } from "./internal/client.ts";
import type { ClientOptions } from "./internal/requester.ts";
import type { KubeApiError } from "./KubeApiError.ts";
import type { KubeTransport } from "./KubeTransport.ts";
import type { LoginError } from "./LoginError.ts";
import type { CredentialsVault } from "./Vault.ts";

export type { ClientOptions } from "./internal/requester.ts";

/** A resource to address: a `Resource` of @kopf/structs (URLs come from `Resource.url`). @category models */
export type ApiResource = Resource.Resource;

/** Every failure of an API call. @category errors */
export type ApiError = KubeApiError | LoginError;

/** Where an object is: its namespace (absent or null for cluster-scoped ones) and name. @category models */
export interface ObjectLocation {
  readonly namespace?: string | null | undefined;
  readonly name: string;
  /** e.g. `status` or `scale`. */
  readonly subresource?: string | undefined;
}

/** Query of a list request (one page). @category models */
export interface ListOptions {
  /** Absent or null: all namespaces (or a cluster-scoped resource). */
  readonly namespace?: string | null | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /**
   * Only objects in these hash ranges (`shardRange(object.metadata.uid, '0x…', '0x…') || …`,
   * see `ShardRange.selector`), where the server has sharded list and watch (Kubernetes v1.36+
   * with the `ShardedListAndWatch` gate); others ignore it and send everything. A filtered list
   * of a built-in type echoes the selector in `metadata.shardInfo`; one of custom resources does
   * not (see `ShardedListing` of `@kopf/watcher` for telling the cases apart).
   */
  readonly shardSelector?: string | undefined;
  readonly limit?: number | undefined;
  readonly continue?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: "Exact" | "NotOlderThan" | undefined;
}

/** Query of a watch request. @category models */
export interface WatchOptions {
  readonly namespace?: string | null | undefined;
  readonly resourceVersion?: string | undefined;
  /** Default `true`. */
  readonly allowWatchBookmarks?: boolean | undefined;
  /** The server-side timeout; default `settings.watching.serverTimeout`. */
  readonly timeoutSeconds?: number | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** As in {@link ListOptions.shardSelector}; a server without the feature sends every event. */
  readonly shardSelector?: string | undefined;
}

/** A list response (one page). @category models */
export interface ListBody {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly metadata?: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly remainingItemCount?: number;
    /** The shard selector the server applied (only on lists of built-in types). */
    readonly shardInfo?: { readonly selector: string };
  };
  readonly items: ReadonlyArray<RawBody>;
}

/** A watch event decoded from one JSON line. Events of unknown types are dropped with a warning. @category models */
export interface WatchEvent {
  readonly type: RawEventType;
  readonly object: RawBody;
}

/** A patch: its type decides the content type; `apply` is server-side apply. @category models */
export interface PatchSpec {
  readonly type: "merge" | "json" | "strategic" | "apply";
  readonly body: unknown;
  /** Required by the server for `apply`; defaults to `kopf` there. */
  readonly fieldManager?: string | undefined;
  /** Take over conflicting fields (`apply` only). */
  readonly force?: boolean | undefined;
}

/** Options of create and patch requests. @category models */
export interface WriteOptions {
  readonly fieldManager?: string | undefined;
  readonly dryRun?: boolean | undefined;
}

/** `DeleteOptions` of a delete request. @category models */
export interface DeleteOptions {
  readonly propagationPolicy?: "Orphan" | "Background" | "Foreground" | undefined;
  readonly gracePeriodSeconds?: number | undefined;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
  readonly dryRun?: boolean | undefined;
}

/** A request to any path, for what the typed operations do not cover. @category models */
export interface RawRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path and query, e.g. `/version`. */
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
}

/**
 * The Kubernetes API service.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { KubeApi } from "@kopf/client"
 * import { Resource } from "@kopf/structs"
 * const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true })
 * const program = Effect.gen(function* () {
 *   const api = yield* KubeApi
 *   const page = yield* api.list(pods, { namespace: "default", limit: 100 })
 *   yield* api.patch(pods, { namespace: "default", name: "p1" }, { type: "merge", body: { metadata: { labels: { a: "b" } } } })
 *   return page.items.length
 * })
 * ```
 * @category services
 */
export class KubeApi extends Context.Service<
  KubeApi,
  {
    /** Group-versions and their resources: the core group and `/apis` (only `groups` if given). */
    readonly discover: (options?: {
      readonly groups?: ReadonlyArray<string> | undefined;
    }) => Effect.Effect<ReadonlyArray<GroupVersionResources>, ApiError>;
    readonly get: (resource: ApiResource, location: ObjectLocation) => Effect.Effect<RawBody, ApiError>;
    /** One page of a collection. */
    readonly list: (resource: ApiResource, options?: ListOptions) => Effect.Effect<ListBody, ApiError>;
    /** Every page of a collection, following `continue`; each page carries the list's resourceVersion. */
    readonly listAll: (resource: ApiResource, options?: ListOptions) => Stream.Stream<ListBody, ApiError>;
    /**
     * The events of one watch request, until the server ends it. Not retried: reconnecting is
     * the watcher's job. A 401 when opening it re-authenticates, as for every call.
     */
    readonly watch: (resource: ApiResource, options?: WatchOptions) => Stream.Stream<WatchEvent, ApiError>;
    readonly create: (
      resource: ApiResource,
      body: RawBody,
      options?: WriteOptions & { readonly namespace?: string | null | undefined },
    ) => Effect.Effect<RawBody, ApiError>;
    readonly patch: (
      resource: ApiResource,
      location: ObjectLocation,
      patch: PatchSpec,
      options?: WriteOptions,
    ) => Effect.Effect<RawBody, ApiError>;
    /**
     * The same request as `patch`, for a write whose answer nobody reads (the next write of the
     * same object answers fresher): the response's body is not decoded. An error status fails as
     * it does for `patch`.
     *
     * @example
     * ```ts
     * yield* api.patchUnread(crs, { namespace: "default", name: "x" }, { type: "merge", body: { status: { ok: true } } })
     * ```
     */
    readonly patchUnread: (
      resource: ApiResource,
      location: ObjectLocation,
      patch: PatchSpec,
      options?: WriteOptions,
    ) => Effect.Effect<void, ApiError>;
    /** Delete an object; answers the object (when finalizers hold it) or a `Status`. */
    readonly delete: (
      resource: ApiResource,
      location: ObjectLocation,
      options?: DeleteOptions,
    ) => Effect.Effect<RawBody, ApiError>;
    /**
     * Post a Kubernetes event about an object (Kopf's `post_event`): API failures are logged as
     * warnings and swallowed; events about core `Event`s are skipped.
     */
    readonly postEvent: (ref: ObjectReference, event: EventSpec) => Effect.Effect<void, LoginError>;
    /** The default namespace of the current credentials, if any. */
    readonly defaultNamespace: Effect.Effect<string | undefined, LoginError>;
    /** Any other request; answers the parsed JSON body (or the text if not JSON). */
    readonly raw: (request: RawRequest) => Effect.Effect<unknown, ApiError>;
  }
>()("@kopf/client/KubeApi") {
  /** The KubeApi over the transport and vault in context. */
  static readonly layer = (
    options: ClientOptions = {},
  ): Layer.Layer<KubeApi, never, KubeTransport | CredentialsVault> =>
    Layer.effect(
      KubeApi,
      Effect.map(makeClient(options), (service) => KubeApi.of(service)),
    );
}

/**
 * The implementation of `KubeApi` over a `KubeTransport` and the credentials vault: building
 * requests, authentication headers, retries, timeouts, the rate limit, JSON decoding and the
 * decoding of watch streams.
 */

import { OperatorSettings } from "@kopf/settings";
import { type RawBody, type RawEventType, Resource } from "@kopf/structs";
import { Clock, Effect, Option, Stream } from "effect";
import * as ApiResources from "../ApiResources.ts";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import * as Events from "../Events.ts";
import type {
  ApiError,
  ApiResource,
  DeleteOptions,
  KubeApi,
  ListBody,
  ListOptions,
  ObjectLocation,
  PatchSpec,
  RawRequest,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from "../KubeApi.ts";
import { KubeApiError } from "../KubeApiError.ts";
import {
  KubeTransport,
  type Method,
  type TransportRequest,
  type TransportResponse,
} from "../KubeTransport.ts";
import * as RateLimiter from "../RateLimiter.ts";
import * as Retries from "../Retries.ts";
import { CredentialsVault, type VaultItem } from "../Vault.ts";
import * as JsonLines from "./jsonLines.ts";
import { groupVersionPath, type Query, resourcePath } from "./paths.ts";

/** The version reported in the `User-Agent` header. */
export const VERSION = "0.1.0";

/** How the client behaves beyond the operator settings. */
export interface ClientOptions {
  /** Default `kopf/<version>`. */
  readonly userAgent?: string | undefined;
  /** A client-side rate limit for all requests (watch openings included); off by default. */
  readonly rateLimit?: RateLimiter.RateLimit | undefined;
  /** The field manager of writes that do not name one. Default `kopf`. */
  readonly fieldManager?: string | undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const contentTypes: Record<PatchSpec["type"], string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const watchEventTypes: ReadonlySet<string> = new Set<RawEventType>([
  "ADDED",
  "MODIFIED",
  "DELETED",
  "BOOKMARK",
  "ERROR",
]);

const concatBytes = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
};

const seconds = (value: number | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : value * 1000;

interface Outgoing {
  readonly method: Method;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
}

const parseJson = (response: TransportResponse, what: string): Effect.Effect<unknown, KubeApiError> => {
  const text = decoder.decode(response.body);
  if (text.trim() === "") return Effect.succeed(undefined);
  return Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) =>
      (response.headers["content-type"] ?? "").includes("json")
        ? KubeApiError.transport(`Malformed JSON in the response to ${what}.`, cause)
        : KubeApiError.transport(`Not JSON in the response to ${what}: ${text.slice(0, 80)}`, cause),
  });
};

export const makeClient = Effect.fnUntraced(function* (options: ClientOptions) {
  const transport = yield* KubeTransport;
  const vault = yield* CredentialsVault;
  const limiter = options.rateLimit ? RateLimiter.make(options.rateLimit) : RateLimiter.unlimited;
  const userAgent = options.userAgent ?? `kopf/${VERSION}`;
  const defaultFieldManager = options.fieldManager ?? "kopf";

  const headersFor = (item: VaultItem, outgoing: Outgoing, accept: string): Record<string, string> => {
    const headers: Record<string, string> = { accept, "user-agent": userAgent };
    const authorization = ConnectionInfo.authorization(item.info);
    if (authorization !== undefined) headers.authorization = authorization;
    if (outgoing.body !== undefined) headers["content-type"] = outgoing.contentType ?? "application/json";
    return headers;
  };

  const transportRequest = (
    item: VaultItem,
    outgoing: Outgoing,
    connectTimeout: number | undefined,
  ): TransportRequest => ({
    method: outgoing.method,
    path: outgoing.path,
    headers: headersFor(item, outgoing, "application/json"),
    body: outgoing.body === undefined ? undefined : encoder.encode(JSON.stringify(outgoing.body)),
    connection: item.info,
    connectTimeout,
  });

  /** One authenticated, retried, timed request; error statuses become failures. */
  const send = (outgoing: Outgoing): Effect.Effect<TransportResponse, ApiError> =>
    Effect.gen(function* () {
      const settings = yield* OperatorSettings;
      const { networking } = settings;
      const what = `${outgoing.method} ${outgoing.path}`;
      const total = seconds(networking.requestTimeout);
      const connect = seconds(networking.connectTimeout);
      const retryOptions: Retries.RetryOptions = {
        errorBackoffs: networking.errorBackoffs,
        enforceRetryAfter: networking.enforceRetryAfter,
      };
      return yield* vault.withCredentials((item) => {
        const once = limiter.acquire.pipe(
          Effect.andThen(Effect.suspend(() => transport.request(transportRequest(item, outgoing, connect)))),
          Effect.flatMap((response) => {
            const error = KubeApiError.fromResponse(response);
            return error === undefined ? Effect.succeed(response) : Effect.fail(error);
          }),
        );
        const timed =
          total === undefined
            ? once
            : once.pipe(
                Effect.timeoutOrElse({
                  duration: total,
                  orElse: () =>
                    Effect.fail(KubeApiError.timeout(`No response within ${total / 1000}s: ${what}`)),
                }),
              );
        return Retries.retrying(retryOptions, what)(timed);
      });
    });

  const sendJson = (outgoing: Outgoing): Effect.Effect<unknown, ApiError> =>
    Effect.flatMap(send(outgoing), (response) => parseJson(response, `${outgoing.method} ${outgoing.path}`));

  const pathOf = (
    resource: ApiResource,
    location: Parameters<typeof resourcePath>[1],
    query?: Query,
  ): Effect.Effect<string, KubeApiError> => Effect.fromResult(resourcePath(resource, location, query));

  const get = (resource: ApiResource, location: ObjectLocation) =>
    Effect.flatMap(pathOf(resource, location), (path) => sendJson({ method: "GET", path })) as Effect.Effect<
      RawBody,
      ApiError
    >;

  const listQuery = (options: ListOptions): Query => ({
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    limit: options.limit,
    continue: options.continue,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  });

  const list = (resource: ApiResource, options: ListOptions = {}): Effect.Effect<ListBody, ApiError> =>
    pathOf(resource, { namespace: options.namespace }, listQuery(options)).pipe(
      Effect.flatMap((path) => sendJson({ method: "GET", path })),
      Effect.map((body) => {
        const list = (body ?? {}) as ListBody;
        return Array.isArray(list.items) ? list : { ...list, items: [] };
      }),
    );

  const listAll = (resource: ApiResource, options: ListOptions = {}): Stream.Stream<ListBody, ApiError> =>
    Stream.paginate(options.continue, (token: string | undefined) =>
      list(resource, { ...options, continue: token }).pipe(
        Effect.map((page) => {
          const next = page.metadata?.continue;
          return [[page], next ? Option.some(next) : Option.none()] as const;
        }),
      ),
    );

  const decodeEvent = (value: unknown): Effect.Effect<ReadonlyArray<WatchEvent>, KubeApiError> => {
    const event = value as { type?: unknown; object?: unknown } | null;
    if (typeof event !== "object" || event === null || typeof event.type !== "string") {
      return Effect.fail(KubeApiError.transport("A watch event without a type in the watch stream."));
    }
    if (!watchEventTypes.has(event.type)) {
      return Effect.logWarning(`Ignoring an unsupported watch event type: ${event.type}`).pipe(Effect.as([]));
    }
    const object = (typeof event.object === "object" && event.object !== null ? event.object : {}) as RawBody;
    return Effect.succeed([{ type: event.type as RawEventType, object }]);
  };

  const watch = (resource: ApiResource, options: WatchOptions = {}): Stream.Stream<WatchEvent, ApiError> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const { watching, networking } = yield* OperatorSettings;
        const timeoutSeconds = options.timeoutSeconds ?? watching.serverTimeout ?? undefined;
        const path = yield* pathOf(
          resource,
          { namespace: options.namespace },
          {
            watch: "true",
            allowWatchBookmarks: (options.allowWatchBookmarks ?? true) ? "true" : undefined,
            resourceVersion: options.resourceVersion,
            timeoutSeconds,
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
          },
        );
        const connect =
          seconds(watching.connectTimeout) ??
          seconds(networking.connectTimeout) ??
          seconds(networking.requestTimeout);
        const response = yield* vault.withCredentials((item) =>
          limiter.acquire.pipe(
            Effect.andThen(
              Effect.suspend(() =>
                transport.stream(transportRequest(item, { method: "GET", path }, connect)),
              ),
            ),
            Effect.flatMap((response) =>
              response.status < 400
                ? Effect.succeed(response)
                : Stream.runCollect(response.body).pipe(
                    Effect.map(concatBytes),
                    Effect.orElseSucceed(() => new Uint8Array(0)),
                    Effect.flatMap((body) =>
                      Effect.fail(
                        KubeApiError.fromResponse({ ...response, body }) ?? KubeApiError.transport("?"),
                      ),
                    ),
                  ),
            ),
          ),
        );
        const events = JsonLines.values(response.body).pipe(
          Stream.mapEffect(decodeEvent),
          Stream.flattenIterable,
        );
        const clientTimeout = seconds(watching.clientTimeout);
        return clientTimeout === undefined
          ? events
          : events.pipe(Stream.interruptWhen(Effect.sleep(clientTimeout)));
      }),
    );

  const writeQuery = (options: WriteOptions | undefined, fallbackManager?: string): Query => ({
    fieldManager: options?.fieldManager ?? fallbackManager,
    dryRun: options?.dryRun ? "All" : undefined,
  });

  const create: KubeApi["Service"]["create"] = (resource, body, options) =>
    pathOf(
      resource,
      { namespace: options?.namespace === undefined ? body.metadata?.namespace : options.namespace },
      writeQuery(options),
    ).pipe(
      Effect.flatMap((path) => sendJson({ method: "POST", path, body })),
      Effect.map((created) => created as RawBody),
    );

  const patch: KubeApi["Service"]["patch"] = (resource, location, spec, options) => {
    const manager =
      spec.fieldManager ?? options?.fieldManager ?? (spec.type === "apply" ? defaultFieldManager : undefined);
    const query: Query = {
      ...writeQuery(options, manager),
      fieldManager: manager,
      force: spec.type === "apply" && spec.force ? "true" : undefined,
    };
    return pathOf(resource, location, query).pipe(
      Effect.flatMap((path) =>
        sendJson({ method: "PATCH", path, body: spec.body, contentType: contentTypes[spec.type] }),
      ),
      Effect.map((patched) => patched as RawBody),
    );
  };

  const del = (resource: ApiResource, location: ObjectLocation, options?: DeleteOptions) => {
    const body =
      options === undefined
        ? undefined
        : {
            apiVersion: "v1",
            kind: "DeleteOptions",
            ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
            ...(options.gracePeriodSeconds !== undefined
              ? { gracePeriodSeconds: options.gracePeriodSeconds }
              : {}),
            ...(options.preconditions ? { preconditions: options.preconditions } : {}),
            ...(options.dryRun ? { dryRun: ["All"] } : {}),
          };
    return pathOf(resource, location).pipe(
      Effect.flatMap((path) => sendJson({ method: "DELETE", path, body })),
      Effect.map((answer) => answer as RawBody),
    );
  };

  const defaultNamespace = Effect.map(vault.select, (item) => item.info.defaultNamespace);

  const events = Resource.make({
    group: "",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
  });
  const postEvent: KubeApi["Service"]["postEvent"] = (ref, event) =>
    Effect.gen(function* () {
      if (Events.isSkipped(ref)) return;
      const { posting } = yield* OperatorSettings;
      const fallbackNamespace = ref.namespace ? ref.namespace : ((yield* defaultNamespace) ?? "default");
      const now = yield* Clock.currentTimeMillis;
      const { namespace, body } = Events.eventBody(ref, event, {
        namePrefix: posting.eventNamePrefix,
        reportingComponent: posting.reportingComponent,
        reportingInstance: posting.reportingInstance,
        fallbackNamespace,
        now,
      });
      yield* create(events, body as RawBody, { namespace }).pipe(
        Effect.catchTag("KubeApiError", (error) =>
          Effect.logWarning(
            `Failed to post an event. Ignoring and continuing. Code: ${error.code ?? error.status}. ` +
              `Message: ${error.message}. Details: ${JSON.stringify(error.details ?? null)}. ` +
              `Event: type=${JSON.stringify(event.type)}, reason=${JSON.stringify(event.reason)}, ` +
              `message=${JSON.stringify(body.message)}.`,
          ),
        ),
      );
    });

  const groupVersion = (group: string, version: string, preferred: boolean) =>
    sendJson({ method: "GET", path: groupVersionPath(group, version) }).pipe(
      Effect.map((body) => ApiResources.parseResources(body)),
      // A group-version gone between the listing and this request (e.g. a CRD being deleted).
      Effect.catchIf(
        (error): error is KubeApiError => error._tag === "KubeApiError" && error.reason === "NotFound",
        () => Effect.succeed([]),
      ),
      Effect.map((resources) => ({ group, version, preferred, resources })),
    );

  const discover: KubeApi["Service"]["discover"] = (options) =>
    Effect.gen(function* () {
      const wanted = options?.groups;
      const core =
        wanted === undefined || wanted.includes("")
          ? ApiResources.parseCoreVersions(yield* sendJson({ method: "GET", path: "/api" })).map((version) =>
              groupVersion("", version, true),
            )
          : [];
      const groups = ApiResources.parseGroups(yield* sendJson({ method: "GET", path: "/apis" }))
        .filter((group) => wanted === undefined || wanted.includes(group.name))
        .flatMap((group) =>
          group.versions.map((v) =>
            groupVersion(group.name, v.version, v.version === group.preferredVersion?.version),
          ),
        );
      return yield* Effect.all([...core, ...groups], { concurrency: 8 });
    });

  const raw: KubeApi["Service"]["raw"] = (request: RawRequest) =>
    send({
      method: request.method,
      path: request.path,
      body: request.body,
      contentType: request.contentType,
    }).pipe(
      Effect.flatMap((response) =>
        parseJson(response, `${request.method} ${request.path}`).pipe(
          Effect.orElseSucceed(() => decoder.decode(response.body)),
        ),
      ),
    );

  return {
    discover,
    get,
    list,
    listAll,
    watch,
    create,
    patch,
    delete: del,
    postEvent,
    defaultNamespace,
    raw,
  } satisfies KubeApi["Service"];
});

/**
 * The implementation of `KubeApi` over a `KubeTransport` and the credentials vault: the typed
 * operations on top of the request machinery (`requester.ts`), the watch stream
 * (`watching.ts`) and discovery (`discovery.ts`).
 */
import { OperatorSettings } from "@kopf/settings";
import { type RawBody, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import * as Events from "../Events.ts";
import type {
  ApiError,
  ApiResource,
  KubeApi,
  ListBody,
  ListOptions,
  PatchSpec,
  WriteOptions,
} from "../KubeApi.ts";
import { KubeTransport, type Method } from "../KubeTransport.ts";
import { CredentialsVault } from "../Vault.ts";
import { discover } from "./discovery.ts";
import type { Location, Query } from "./paths.ts";
import { type ClientOptions, makeRequester, parseJson, textOf } from "./requester.ts";
import { watch } from "./watching.ts";

export type { ClientOptions } from "./requester.ts";

const contentTypes: Record<PatchSpec["type"], string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const events = Resource.make({ group: "", version: "v1", plural: "events", kind: "Event", namespaced: true });

const listQuery = (options: ListOptions): Query => ({
  labelSelector: options.labelSelector,
  fieldSelector: options.fieldSelector,
  shardSelector: options.shardSelector,
  limit: options.limit,
  continue: options.continue,
  resourceVersion: options.resourceVersion,
  resourceVersionMatch: options.resourceVersionMatch,
});

const writeQuery = (options: WriteOptions | undefined, fieldManager?: string): Query => ({
  fieldManager: fieldManager ?? options?.fieldManager,
  dryRun: options?.dryRun ? "All" : undefined,
});

export const makeClient = Effect.fnUntraced(function* (clientOptions: ClientOptions) {
  const { networking } = yield* OperatorSettings;
  const requester = makeRequester(yield* KubeTransport, yield* CredentialsVault, {
    ...clientOptions,
    rateLimit: clientOptions.rateLimit ?? networking.rateLimit ?? undefined,
  });
  const applyManager = clientOptions.fieldManager ?? "kopf";
  const { sendJson, sendFor, target, vault } = requester;
  // A request and its body (an empty response as `{}`), in one step of the fiber per request.
  const bodyOf = (
    method: Method,
    resource: ApiResource,
    location: Location,
    query?: Query,
    extra?: { readonly body?: unknown; readonly contentType?: string | undefined },
  ) => sendFor(method, resource, location, query, extra) as Effect.Effect<RawBody, ApiError>;

  // A patch request; `unread`: its response's body is not decoded.
  const patching = (
    resource: ApiResource,
    location: Location,
    spec: PatchSpec,
    writeOptions: WriteOptions | undefined,
    unread: boolean,
  ) => {
    const manager =
      spec.fieldManager ?? writeOptions?.fieldManager ?? (spec.type === "apply" ? applyManager : undefined);
    const query: Query = {
      ...writeQuery(writeOptions, manager),
      force: spec.type === "apply" && spec.force ? "true" : undefined,
    };
    return sendFor("PATCH", resource, location, query, {
      body: spec.body,
      contentType: contentTypes[spec.type],
      unread,
    });
  };

  const list = (resource: ApiResource, options: ListOptions = {}): Effect.Effect<ListBody, ApiError> =>
    target("GET", resource, { namespace: options.namespace }, listQuery(options)).pipe(
      Effect.flatMap(sendJson),
      Effect.map((body) => {
        const list = (body ?? {}) as ListBody;
        return Array.isArray(list.items) ? list : { ...list, items: [] };
      }),
    );

  const create: KubeApi["Service"]["create"] = (resource, body, options) =>
    bodyOf(
      "POST",
      resource,
      { namespace: options?.namespace === undefined ? body.metadata?.namespace : options.namespace },
      writeQuery(options),
      { body },
    );

  const defaultNamespace = Effect.map(vault.select, (item) => item.info.defaultNamespace);

  const service: KubeApi["Service"] = {
    discover: (options) => discover(requester, options?.groups),

    get: (resource, location) => bodyOf("GET", resource, location),

    list,

    listAll: (resource, options = {}) =>
      Stream.paginate(options.continue, (token: string | undefined) =>
        list(resource, { ...options, continue: token }).pipe(
          Effect.map((page) => {
            const next = page.metadata?.continue;
            return [[page], next ? Option.some(next) : Option.none()] as const;
          }),
        ),
      ),

    watch: (resource, options = {}) => watch(requester, resource, options),

    create,

    patch: (resource, location, spec, writeOptions) =>
      patching(resource, location, spec, writeOptions, false) as Effect.Effect<RawBody, ApiError>,

    // `sendFor` answers `undefined` for an unread response.
    patchUnread: (resource, location, spec, writeOptions) =>
      patching(resource, location, spec, writeOptions, true) as Effect.Effect<void, ApiError>,

    delete: (resource, location, deleteOptions) => {
      const body =
        deleteOptions === undefined
          ? undefined
          : {
              apiVersion: "v1",
              kind: "DeleteOptions",
              ...(deleteOptions.propagationPolicy
                ? { propagationPolicy: deleteOptions.propagationPolicy }
                : {}),
              ...(deleteOptions.gracePeriodSeconds !== undefined
                ? { gracePeriodSeconds: deleteOptions.gracePeriodSeconds }
                : {}),
              ...(deleteOptions.preconditions ? { preconditions: deleteOptions.preconditions } : {}),
              ...(deleteOptions.dryRun ? { dryRun: ["All"] } : {}),
            };
      return bodyOf("DELETE", resource, location, undefined, { body });
    },

    postEvent: (ref, event) =>
      Effect.gen(function* () {
        if (Events.isSkipped(ref)) return;
        const { posting } = yield* OperatorSettings;
        const fallbackNamespace = ref.namespace ? ref.namespace : ((yield* defaultNamespace) ?? "default");
        const { namespace, body } = Events.eventBody(ref, event, {
          namePrefix: posting.eventNamePrefix,
          reportingComponent: posting.reportingComponent,
          reportingInstance: posting.reportingInstance,
          fallbackNamespace,
          now: yield* Clock.currentTimeMillis,
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
      }),

    defaultNamespace,

    raw: (request) =>
      requester
        .send({
          method: request.method,
          path: request.path,
          body: request.body,
          contentType: request.contentType,
        })
        .pipe(
          Effect.flatMap((response) =>
            parseJson(response, `${request.method} ${request.path}`).pipe(
              Effect.orElseSucceed(() => textOf(response)),
            ),
          ),
        ),
  };
  return service;
});

/**
 * Request dispatch: the declared paths ({@link Paths.routes}) give a discovery document or a
 * resource address, the address is resolved against the served types (namespace, name,
 * subresource), the verb comes from the method and query, and its handler runs. Every failure is an
 * `ApiError` carrying the Status body.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Deletion from "./Deletion.ts";
import * as Discovery from "./Discovery.ts";
import type { ApiRequest } from "./Emulator.ts";
import { type Core, json, type Resolved, type Response, text } from "./internal/Core.ts";
import type { JsonObject } from "./internal/Json.ts";
import * as OpenApi from "./OpenApi.ts";
import * as Patches from "./Patches.ts";
import * as Paths from "./Paths.ts";
import * as Reads from "./Reads.ts";
import type { ResourceType } from "./ResourceType.ts";
import * as Scale from "./Scale.ts";
import * as Status from "./Status.ts";
import * as Tables from "./Tables.ts";
import * as Watch from "./Watch.ts";
import * as WriteOptions from "./WriteOptions.ts";
import * as Writes from "./Writes.ts";

export interface RouterOptions {
  readonly gitVersion: string;
}

const servedTypes = (core: Core): Array<ResourceType> => [
  ...[...core.store.tables.values()].map((t) => t.type),
  ...core.store.views.values(),
];

const typeFor = (core: Core, group: string, version: string, plural: string): ResourceType | undefined => {
  const type = core.store.table(group, plural)?.type ?? core.store.views.get(`${group}/${plural}`);
  return type?.versions.includes(version) ? type : undefined;
};

/** Whether some served type is in the group and version (every request asks: no arrays built). */
const groupVersionServed = (core: Core, group: string, version: string): boolean => {
  for (const table of core.store.tables.values())
    if (table.type.group === group && table.type.versions.includes(version)) return true;
  for (const type of core.store.views.values())
    if (type.group === group && type.versions.includes(version)) return true;
  return false;
};

const PAGE_NOT_FOUND = () => text(404, "404 page not found\n");

type Resolution =
  | { readonly _tag: "Resolved"; readonly resolved: Resolved }
  | { readonly _tag: "Answer"; readonly response: Response };

/**
 * Resolves a resource address under a group and version against the served types: a namespaced
 * resource in a namespace, a cluster-scoped one (or a namespaced one across all namespaces), or a
 * subresource of a namespace (`/namespaces/{name}/status` and `/finalize`).
 */
export const resolve = (
  core: Core,
  group: string,
  version: string,
  address: Paths.ResourceAddress | undefined,
): Result.Result<Resolution, Status.ApiError> => {
  if (!groupVersionServed(core, group, version))
    return Result.succeed({ _tag: "Answer", response: PAGE_NOT_FOUND() });
  if (address === undefined) return Result.fail(Status.resourceNotFound());
  const make = (
    type: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    sub: string | undefined,
  ): Result.Result<Resolution, Status.ApiError> => {
    const table = core.store.table(type.storedAs?.group ?? type.group, type.storedAs?.plural ?? type.plural);
    if (table === undefined) return Result.fail(Status.resourceNotFound());
    if (sub !== undefined) {
      const known =
        (sub === "status" && type.status) ||
        (sub === "scale" && type.scale !== undefined) ||
        type.extraSubresources.includes(sub);
      if (!known) return Result.fail(Status.resourceNotFound());
    }
    return Result.succeed({
      _tag: "Resolved",
      resolved: {
        type,
        table,
        version,
        namespace,
        name,
        subresource: sub,
        gr: { group: type.group, resource: type.plural },
      },
    });
  };
  const { namespace, resource, name, subresource } = address;
  if (namespace !== undefined) {
    const nsType = typeFor(core, group, version, resource);
    if (nsType?.namespaced) return make(nsType, namespace, name, subresource);
    const namespaces = typeFor(core, group, version, "namespaces");
    if (namespaces !== undefined && name === undefined && (resource === "status" || resource === "finalize"))
      return make(namespaces, undefined, namespace, resource);
    return Result.fail(Status.resourceNotFound());
  }
  const type = typeFor(core, group, version, resource);
  if (type === undefined) return Result.fail(Status.resourceNotFound());
  if (type.namespaced) {
    if (name !== undefined) return Result.fail(Status.resourceNotFound());
    return make(type, undefined, undefined, undefined);
  }
  return make(type, undefined, name, subresource);
};

const isWatch = (query: URLSearchParams): boolean => {
  const w = query.get("watch");
  return w === "true" || w === "1";
};

/** A list as a Table, which copies the list's resourceVersion, continue and remaining count only. */
const asTable = (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  items: ReadonlyArray<JsonObject>,
  { shardInfo: _echoed, ...meta }: JsonObject,
) => Tables.table(resolved.type, items, meta, core.now(), request.query.get("includeObject") ?? "Metadata");

const resource = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  watchPrefix: boolean,
) {
  const method = request.method.toUpperCase();
  const collection = resolved.name === undefined;
  const deny = (verb: string) => !resolved.type.verbs.includes(verb);
  // A DELETE with a body takes its options from the body alone (DeleteOptions.parseOptions checks them).
  const hasBody = request.body !== undefined && request.body.byteLength > 0;
  const badOptions = method === "DELETE" && hasBody ? undefined : WriteOptions.check(method, request.query);
  if (badOptions !== undefined) return yield* Effect.fail(badOptions);
  if (collection) {
    if (method === "GET") {
      if (watchPrefix || isWatch(request.query)) {
        if (deny("watch")) return yield* Effect.fail(Status.methodNotAllowed());
        const options = yield* Effect.fromResult(
          Watch.options(core, resolved, request.query, request.headers.accept),
        );
        return Watch.open(core, resolved, options);
      }
      const list = yield* Effect.fromResult(
        Reads.list(core.store, resolved, request, core.shardedListAndWatch),
      );
      if (!Tables.wantsTable(request.headers.accept)) return json(200, list);
      return json(
        200,
        asTable(core, resolved, request, list.items as Array<JsonObject>, list.metadata as JsonObject),
      );
    }
    if (method === "POST" && !deny("create")) return yield* Writes.create(core, resolved, request);
    if (method === "DELETE")
      return yield* Deletion.removeCollection(core, resolved, request, () =>
        Reads.list(core.store, resolved, request, core.shardedListAndWatch),
      );
    return yield* Effect.fail(Status.methodNotAllowed());
  }
  if (watchPrefix || (method === "GET" && resolved.subresource === undefined && isWatch(request.query))) {
    const options = yield* Effect.fromResult(
      Watch.options(core, resolved, request.query, request.headers.accept),
    );
    const name = resolved.name ?? "";
    const byName = {
      ...options.selection,
      fields: [...options.selection.fields, { field: "metadata.name", op: "=" as const, value: name }],
    };
    return Watch.open(core, { ...resolved, name: undefined }, { ...options, selection: byName });
  }
  if (resolved.subresource === "scale") {
    if (method === "GET") return json(200, yield* Effect.fromResult(Scale.get(resolved)));
    if (method === "PUT" || method === "PATCH") return yield* Scale.write(core, resolved, request, method);
    return yield* Effect.fail(Status.methodNotAllowed());
  }
  if (resolved.subresource === "finalize") {
    if (method !== "PUT") return yield* Effect.fail(Status.methodNotAllowed());
    return yield* Writes.update(core, { ...resolved, subresource: undefined }, request);
  }
  switch (method) {
    case "GET": {
      const obj = yield* Effect.fromResult(Reads.get(resolved));
      if (!Tables.wantsTable(request.headers.accept)) return json(200, obj);
      return json(
        200,
        asTable(core, resolved, request, [obj], {
          resourceVersion: (obj.metadata as JsonObject).resourceVersion,
        }),
      );
    }
    case "PUT":
      return yield* Writes.update(core, resolved, request);
    case "PATCH":
      return yield* Patches.patch(core, resolved, request);
    case "DELETE":
      return yield* Deletion.remove(core, resolved, request);
    default:
      return yield* Effect.fail(Status.methodNotAllowed());
  }
});

/** The discovery documents, or 404 when the group or version is not served. */
const discovery = (
  core: Core,
  options: RouterOptions,
  target: Exclude<Paths.Target, { readonly _tag: "Resource" }>,
  request: ApiRequest,
): Response => {
  const types = servedTypes(core);
  const aggregated = (legacy: boolean): Response => ({
    ...json(200, Discovery.aggregated(types, legacy)),
    headers: { "content-type": Discovery.AGGREGATED_MEDIA },
  });
  const servedIn = (group: string, version: string) =>
    types.filter((t) => t.group === group && t.versions.includes(version));
  switch (target._tag) {
    case "Version":
      return json(200, Discovery.versionInfo(options.gitVersion));
    case "Health":
      return text(200, "ok");
    case "LegacyRoot":
      return Discovery.wantsAggregated(request.headers.accept)
        ? aggregated(true)
        : json(200, Discovery.apiVersions());
    case "GroupsRoot":
      return Discovery.wantsAggregated(request.headers.accept)
        ? aggregated(false)
        : json(200, Discovery.apiGroupList(types));
    case "Group": {
      const group = Discovery.apiGroup(types, target.group);
      return group === undefined
        ? PAGE_NOT_FOUND()
        : json(200, { kind: "APIGroup", apiVersion: "v1", ...group });
    }
    case "GroupVersion": {
      const served = servedIn(target.group, target.version);
      return served.length === 0
        ? PAGE_NOT_FOUND()
        : json(200, Discovery.resourceList(served, target.group, target.version));
    }
    case "OpenApiV2":
      return json(200, OpenApi.v2(types, options.gitVersion));
    case "OpenApiV3Root":
      return json(200, OpenApi.v3Root(types));
    case "OpenApiV3": {
      const served = servedIn(target.group, target.version);
      return served.length === 0
        ? PAGE_NOT_FOUND()
        : json(200, OpenApi.v3(served, target.group, target.version, options.gitVersion));
    }
  }
};

/** Routes one request: by the declared paths ({@link Paths.routes}), then by the served types. */
export const route = Effect.fnUntraced(function* (core: Core, options: RouterOptions, request: ApiRequest) {
  const matched = Paths.match(request.method, request.path);
  if (matched._tag === "NotFound") return PAGE_NOT_FOUND();
  const target = matched.value;
  if (target._tag === "Resource") {
    const r = yield* Effect.fromResult(resolve(core, target.group, target.version, target.address));
    if (r._tag === "Answer") return r.response;
    return yield* resource(core, r.resolved, request, target.watchPrefix);
  }
  const answer = discovery(core, options, target, request);
  // A document that does not exist is 404 whatever the method; one that does is read-only.
  if (matched._tag === "MethodNotAllowed" && answer.status !== 404)
    return json(405, Status.methodNotAllowed().status);
  return answer;
});

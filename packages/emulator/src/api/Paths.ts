/**
 * URL paths of the Kubernetes API as declared route tables: what a request addresses (a discovery
 * document, an OpenAPI document, a health check, or a resource under a group and version), with
 * the methods each answers. Resource paths are matched by a second table into a typed address;
 * whether that address names a served resource is decided later, against the served types.
 */
import * as RouteTable from "./RouteTable.ts";

/** Where a resource request points, as its path says (nothing checked against the served types). */
export interface ResourceAddress {
  /** The namespace segment (`/namespaces/{namespace}/...`), if any. */
  readonly namespace: string | undefined;
  readonly resource: string;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

export type Target =
  | { readonly _tag: "Version" }
  | { readonly _tag: "LegacyRoot" }
  | { readonly _tag: "GroupsRoot" }
  | { readonly _tag: "Group"; readonly group: string }
  | { readonly _tag: "GroupVersion"; readonly group: string; readonly version: string }
  | { readonly _tag: "OpenApiV2" }
  | { readonly _tag: "OpenApiV3Root" }
  | { readonly _tag: "OpenApiV3"; readonly group: string; readonly version: string }
  | { readonly _tag: "Health"; readonly name: string }
  | {
      readonly _tag: "Resource";
      readonly group: string;
      readonly version: string;
      /** Legacy `/watch/` prefix used. */
      readonly watchPrefix: boolean;
      /** `undefined` when the segments after the group and version have no resource shape. */
      readonly address: ResourceAddress | undefined;
    };

const READ = ["GET", "HEAD"];

const address = (
  namespace: string | undefined,
  resource: string,
  name: string | undefined,
  subresource: string | undefined,
): ResourceAddress => ({ namespace, resource, name, subresource });

/** The shapes of the segments after `/api/{v}` or `/apis/{g}/{v}` (and after a `watch/` prefix). */
export const resourceShapes: ReadonlyArray<RouteTable.Route<ResourceAddress>> = [
  RouteTable.route("any", "/namespaces/:namespace/:resource/:name/:subresource", (p) =>
    address(p.namespace, p.resource, p.name, p.subresource),
  ),
  RouteTable.route("any", "/namespaces/:namespace/:resource/:name", (p) =>
    address(p.namespace, p.resource, p.name, undefined),
  ),
  RouteTable.route("any", "/namespaces/:namespace/:resource", (p) =>
    address(p.namespace, p.resource, undefined, undefined),
  ),
  RouteTable.route("any", "/:resource/:name/:subresource", (p) =>
    address(undefined, p.resource, p.name, p.subresource),
  ),
  RouteTable.route("any", "/:resource/:name", (p) => address(undefined, p.resource, p.name, undefined)),
  RouteTable.route("any", "/:resource", (p) => address(undefined, p.resource, undefined, undefined)),
];

const resource = (
  group: string,
  version: string,
  watchPrefix: boolean,
  rest: RouteTable.Segments,
): Target => {
  const shape = RouteTable.match(resourceShapes, "GET", rest);
  return {
    _tag: "Resource",
    group,
    version,
    watchPrefix,
    address: shape._tag === "NotFound" ? undefined : shape.value,
  };
};

/** The API's paths, in matching order. */
export const routes: ReadonlyArray<RouteTable.Route<Target>> = [
  RouteTable.route(READ, "/version", () => ({ _tag: "Version" })),
  RouteTable.route(READ, "/healthz", () => ({ _tag: "Health", name: "healthz" })),
  RouteTable.route(READ, "/livez", () => ({ _tag: "Health", name: "livez" })),
  RouteTable.route(READ, "/readyz", () => ({ _tag: "Health", name: "readyz" })),
  RouteTable.route(READ, "/openapi/v2", () => ({ _tag: "OpenApiV2" })),
  RouteTable.route(READ, "/openapi/v3", () => ({ _tag: "OpenApiV3Root" })),
  RouteTable.route(READ, "/openapi/v3/api/:version", ({ version }) => ({
    _tag: "OpenApiV3",
    group: "",
    version,
  })),
  RouteTable.route(READ, "/openapi/v3/apis/:group/:version", ({ group, version }) => ({
    _tag: "OpenApiV3",
    group,
    version,
  })),
  RouteTable.route(READ, "/api", () => ({ _tag: "LegacyRoot" })),
  RouteTable.route(READ, "/api/:version", ({ version }) => ({ _tag: "GroupVersion", group: "", version })),
  RouteTable.route("any", "/api/:version/watch/*", ({ version, rest }) => resource("", version, true, rest)),
  RouteTable.route("any", "/api/:version/*", ({ version, rest }) => resource("", version, false, rest)),
  RouteTable.route(READ, "/apis", () => ({ _tag: "GroupsRoot" })),
  RouteTable.route(READ, "/apis/:group", ({ group }) => ({ _tag: "Group", group })),
  RouteTable.route(READ, "/apis/:group/:version", ({ group, version }) => ({
    _tag: "GroupVersion",
    group,
    version,
  })),
  RouteTable.route("any", "/apis/:group/:version/watch/*", ({ group, version, rest }) =>
    resource(group, version, true, rest),
  ),
  RouteTable.route("any", "/apis/:group/:version/*", ({ group, version, rest }) =>
    resource(group, version, false, rest),
  ),
];

/**
 * Matches a request's method and path (without the query string) against {@link routes}.
 *
 * @example
 * ```ts
 * Paths.match("GET", "/apis/apps/v1/namespaces/ns/deployments/web/scale")
 * // { _tag: "Matched", value: { _tag: "Resource", group: "apps", version: "v1", watchPrefix: false,
 * //   address: { namespace: "ns", resource: "deployments", name: "web", subresource: "scale" } }, ... }
 * ```
 */
export const match = (method: string, path: string): RouteTable.Match<Target> => {
  const segments = RouteTable.segments(path);
  return segments === undefined ? { _tag: "NotFound" } : RouteTable.match(routes, method, segments);
};

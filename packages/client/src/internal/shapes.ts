/**
 * The shapes of requests: what their metrics and failure digest know them by (the verb and
 * resource labels, the request kind), derived from a path once per kind of request to a resource
 * rather than parsed from every request's path.
 */
import * as ApiMetrics from "../ApiMetrics.ts";
import * as FailureDigest from "../FailureDigest.ts";
import type { ApiResource } from "../KubeApi.ts";
import type { Method } from "../KubeTransport.ts";
import { type Location, type Query, resourcePath } from "./paths.ts";

/** What a request is, for its metrics and its failure digest: derived once per kind of request. */
export interface Shape {
  readonly labels: ApiMetrics.RequestLabels;
  /** The kind of request for the failure digest (`FailureDigest.requestKind`). */
  readonly kind: string;
}

/** The shape of a request from its method and path (parsed). */
export const shapeOf = (method: Method, path: string): Shape => ({
  labels: ApiMetrics.labelsOf(method, path),
  kind: FailureDigest.requestKind(method, path),
});

// The shapes of requests to a resource, by what decides them: the method, whether a namespace,
// a name and a subresource are addressed, and whether it is a watch. Names and namespaces do
// not change a shape, so it is derived once from a path with placeholders in their place.
const shapes = new WeakMap<ApiResource, Map<string, Shape>>();

/** The shape of a request to a resource, remembered per resource and kind of request. */
export const shapeFor = (
  method: Method,
  resource: ApiResource,
  location: Location,
  query: Query | undefined,
): Shape => {
  let known = shapes.get(resource);
  if (known === undefined) {
    known = new Map();
    shapes.set(resource, known);
  }
  const watch = query?.watch;
  const key = `${method} ${location.namespace ? 1 : 0}${location.name === undefined ? 0 : 1} ${location.subresource ?? ""} ${watch ?? ""}`;
  const found = known.get(key);
  if (found !== undefined) return found;
  const placeholders: Location = {
    namespace: location.namespace ? "_" : location.namespace,
    name: location.name === undefined ? undefined : "_",
    subresource: location.subresource,
  };
  const template = resourcePath(resource, placeholders, watch === undefined ? undefined : { watch });
  const shape = shapeOf(method, template._tag === "Success" ? template.success : "");
  known.set(key, shape);
  return shape;
};

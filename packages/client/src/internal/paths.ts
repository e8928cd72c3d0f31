/**
 * Request paths of the Kubernetes REST API: group-version roots for discovery, and the paths
 * of resources' collections and objects (built by `Resource.url` of @kopf/structs).
 */
import { Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import { KubeApiError } from "../KubeApiError.ts";

export interface Location {
  readonly namespace?: string | null | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

const invalid = (message: string) => KubeApiError.invalidRequest(message);

const segment = (value: string) => encodeURIComponent(value);

/** The root of a group-version: `/api/v1` or `/apis/apps/v1`. */
export const groupVersionPath = (group: string, version: string): string =>
  group === "" ? `/api/${segment(version)}` : `/apis/${segment(group)}/${segment(version)}`;

/**
 * The path of a collection or an object (via `Resource.url` of @kopf/structs), refusing
 * combinations the API cannot serve with a `BadRequest` error raised before sending.
 */
export const resourcePath = (
  resource: Resource.Resource,
  location: Location,
  query?: Query,
): Result.Result<string, KubeApiError> => {
  const { namespace, name, subresource } = location;
  if (name === "")
    return Result.fail(invalid(`Names must not be empty strings: ${Resource.format(resource)}`));
  // Built for every request: the parameters only when there are some, no intermediate objects.
  let params: Record<string, string> | undefined;
  if (query !== undefined) {
    params = {};
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (value !== undefined) params[key] = String(value);
    }
  }
  // Names cannot hold "/" or spaces in Kubernetes, but encode them anyway: never address another path.
  const options = {
    namespace: namespace ? segment(namespace) : namespace,
    name: name === undefined ? undefined : segment(name),
    subresource: subresource === undefined ? undefined : segment(subresource),
    params,
  };
  return Result.mapError(Resource.url(resource, options), (error) =>
    invalid(`${error.message} (${Resource.format(resource)})`),
  );
};

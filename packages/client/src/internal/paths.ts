/**
 * Request paths of the Kubernetes REST API for a resource: `/api/{v}` for the core group,
 * `/apis/{group}/{v}` otherwise, then `namespaces/{ns}`, the plural, the name and the
 * subresource, with the query appended. Names are percent-encoded.
 */
import { Result } from "effect";
import { KubeApiError } from "../KubeApiError.ts";

/** The part of a resource the client needs to address it. */
export interface ApiResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  /** `false` for cluster-scoped resources (a namespace is then refused); unknown if absent. */
  readonly namespaced?: boolean | undefined;
}

export interface Location {
  readonly namespace?: string | null | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

const invalid = (message: string) =>
  new KubeApiError({
    reason: "BadRequest",
    status: undefined,
    message,
    payload: undefined,
    code: undefined,
    details: undefined,
    retryAfterSeconds: undefined,
  });

const segment = (value: string) => encodeURIComponent(value);

/** The root of a group-version: `/api/v1` or `/apis/apps/v1`. */
export const groupVersionPath = (group: string, version: string): string =>
  group === "" ? `/api/${segment(version)}` : `/apis/${segment(group)}/${segment(version)}`;

/** `?a=1&b=x` for the defined entries of `query`, or `""`. */
export const queryString = (query: Query | undefined): string => {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
};

/** The path of a collection or an object, refusing combinations the API cannot serve. */
export const resourcePath = (
  resource: ApiResource,
  location: Location,
  query?: Query,
): Result.Result<string, KubeApiError> => {
  const { namespace, name, subresource } = location;
  const where = `${resource.plural}.${resource.version}${resource.group ? `.${resource.group}` : ""}`;
  if (namespace && resource.namespaced === false) {
    return Result.fail(
      invalid(`Specific namespaces are not supported for cluster-scoped resources: ${where}`),
    );
  }
  if (subresource && !name) {
    return Result.fail(
      invalid(`Subresources can be used only with specific resources by their name: ${where}`),
    );
  }
  if (name === "" || namespace === "") {
    return Result.fail(invalid(`Names and namespaces must not be empty strings: ${where}`));
  }
  let path = groupVersionPath(resource.group, resource.version);
  if (namespace) path += `/namespaces/${segment(namespace)}`;
  path += `/${segment(resource.plural)}`;
  if (name) path += `/${segment(name)}`;
  if (subresource) path += `/${segment(subresource)}`;
  return Result.succeed(path + queryString(query));
};

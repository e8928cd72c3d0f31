/**
 * What a request does in Kubernetes terms (verb, API group and version, namespace, resource,
 * subresource, name), derived from its method, path and query the way kube-apiserver's
 * request-info factory does. Fault rules match on it.
 */

/** The Kubernetes attributes of one request. */
export type RequestInfo =
  | {
      readonly _tag: "Resource";
      readonly verb: string;
      readonly apiGroup: string;
      readonly apiVersion: string;
      readonly namespace: string | undefined;
      readonly resource: string;
      readonly subresource: string | undefined;
      readonly name: string | undefined;
    }
  | { readonly _tag: "NonResource"; readonly verb: string; readonly path: string };

/** Subresources of a namespace that stay on the namespace rather than naming a resource in it. */
const namespaceSubresources = new Set(["status", "finalize"]);

/** Go's `strconv.ParseBool` truth values, as kube-apiserver reads `?watch=`. */
const isTrue = (value: string | null): boolean =>
  value !== null && ["1", "t", "T", "TRUE", "true", "True"].includes(value);

const nonResource = (method: string, path: string): RequestInfo => ({
  _tag: "NonResource",
  verb: method.toLowerCase(),
  path,
});

/**
 * Classifies a request.
 *
 * @example
 * ```ts
 * RequestInfo.parse("GET", "/api/v1/namespaces/ns1/pods", new URLSearchParams("watch=true"));
 * // { _tag: "Resource", verb: "watch", apiGroup: "", apiVersion: "v1", namespace: "ns1", resource: "pods", ... }
 * ```
 */
export const parse = (method: string, path: string, query: URLSearchParams): RequestInfo => {
  const segments = path.split("/").filter((segment) => segment.length > 0);
  let rest: ReadonlyArray<string>;
  let apiGroup: string;
  let apiVersion: string;
  if (segments[0] === "api" && segments.length >= 3) {
    apiGroup = "";
    apiVersion = segments[1] ?? "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    apiGroup = segments[1] ?? "";
    apiVersion = segments[2] ?? "";
    rest = segments.slice(3);
  } else {
    return nonResource(method, path);
  }
  let legacyWatch = false;
  if (rest[0] === "watch") {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? "")) {
      rest = rest.slice(2);
    }
  }
  const [resource, name, subresource] = rest;
  if (resource === undefined) return nonResource(method, path);
  const upper = method.toUpperCase();
  let verb: string;
  if (legacyWatch || (upper === "GET" && isTrue(query.get("watch")))) verb = "watch";
  else if (upper === "GET" || upper === "HEAD") verb = name === undefined ? "list" : "get";
  else if (upper === "POST") verb = "create";
  else if (upper === "PUT") verb = "update";
  else if (upper === "PATCH") verb = "patch";
  else if (upper === "DELETE") verb = name === undefined ? "deletecollection" : "delete";
  else verb = method.toLowerCase();
  return { _tag: "Resource", verb, apiGroup, apiVersion, namespace, resource, subresource, name };
};

/** `resource` or `resource/subresource`, as rules and RBAC write it. */
export const resourcePath = (info: RequestInfo): string | undefined =>
  info._tag === "NonResource"
    ? undefined
    : info.subresource === undefined
      ? info.resource
      : `${info.resource}/${info.subresource}`;

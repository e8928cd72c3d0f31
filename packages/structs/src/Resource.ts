/**
 * Resources: one specific kind of objects served by the API (group, version, plural and the
 * other names discovery reports), their identity, their `apiVersion`, and their API URLs
 * (Kopf's `Resource`, docs/behaviour/registration.md#public-api).
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";

/** A specific resource kind as served by the cluster. */
export interface Resource {
  /** The API group: `"kopf.dev"`, `"apps"`; `""` for the core group. */
  readonly group: string;
  /** The API version: `"v1"`, `"v1beta1"`. */
  readonly version: string;
  /** The plural name used in URLs: `"kopfexamples"`, `"pods"`. */
  readonly plural: string;
  readonly kind: string | undefined;
  readonly singular: string | undefined;
  readonly shortcuts: ReadonlyArray<string>;
  readonly categories: ReadonlyArray<string>;
  readonly subresources: ReadonlyArray<string>;
  /** `true` namespaced, `false` cluster-scoped, `undefined` unknown (treated as cluster-scoped). */
  readonly namespaced: boolean | undefined;
  /** Whether this is the group's preferred version (only those match version-less selectors). */
  readonly preferred: boolean;
  readonly verbs: ReadonlyArray<string>;
}

/** The fields of `make`: group, version and plural are required, the rest has defaults. */
export interface ResourceFields {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind?: string | undefined;
  readonly singular?: string | undefined;
  readonly shortcuts?: Iterable<string> | undefined;
  readonly categories?: Iterable<string> | undefined;
  readonly subresources?: Iterable<string> | undefined;
  readonly namespaced?: boolean | undefined;
  readonly preferred?: boolean | undefined;
  readonly verbs?: Iterable<string> | undefined;
}

/** Why a URL could not be built for a resource. */
export type ResourceErrorReason =
  | "SubresourceWithoutName"
  | "NamespaceForClusterScoped"
  | "NamespaceRequired";

/** A URL request that does not fit the resource. */
export class ResourceError extends Data.TaggedError("ResourceError")<{
  readonly reason: ResourceErrorReason;
  readonly message: string;
}> {}

const uniq = (items: Iterable<string> | undefined): ReadonlyArray<string> =>
  Object.freeze([...new Set(items ?? [])]);

/**
 * A resource, with Kopf's defaults: no kind or singular, empty name sets, unknown scope,
 * preferred.
 *
 * @example
 * const kex = make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", kind: "KopfExample", namespaced: true })
 */
export const make = (fields: ResourceFields): Resource =>
  Object.freeze({
    group: fields.group,
    version: fields.version,
    plural: fields.plural,
    kind: fields.kind,
    singular: fields.singular,
    shortcuts: uniq(fields.shortcuts),
    categories: uniq(fields.categories),
    subresources: uniq(fields.subresources),
    namespaced: fields.namespaced,
    preferred: fields.preferred ?? true,
    verbs: uniq(fields.verbs),
  });

/**
 * Whether two resources are the same: equal group, version and plural (other names ignored).
 *
 * @example
 * equals(make({ group: "", version: "v1", plural: "pods" }), make({ group: "", version: "v1", plural: "pods", kind: "Pod" })) // true
 */
export const equals = (a: Resource, b: Resource): boolean =>
  a.group === b.group && a.version === b.version && a.plural === b.plural;

const stripDots = (text: string): string => text.replace(/^\.+|\.+$/g, "");

/**
 * The resource as `plural.version.group` (dots stripped at the ends; a subresource in the plural
 * is appended as `/sub`), as Kopf prints it.
 *
 * @example
 * format(make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" })) // "kopfexamples.v1.kopf.dev"
 * format(make({ group: "", version: "v1", plural: "pods" })) // "pods.v1"
 */
export const format = (r: Resource): string => {
  // Asked for every event (metric labels, log lines) of a handful of resources: remembered per
  // resource object, checked against its fields in case a caller built it mutable and changed it.
  const known = formatted.get(r);
  if (
    known !== undefined &&
    known.plural === r.plural &&
    known.version === r.version &&
    known.group === r.group
  )
    return known.text;
  const [main = "", ...subs] = r.plural.split("/");
  const name = stripDots(`${main}.${r.version}.${r.group}`);
  const text = subs.length > 0 ? `${name}/${subs.join("/")}` : name;
  formatted.set(r, { plural: r.plural, version: r.version, group: r.group, text });
  return text;
};
const formatted = new WeakMap<
  Resource,
  { readonly plural: string; readonly version: string; readonly group: string; readonly text: string }
>();

/** An alias of `format`, as `Resource.toString(r)`. */
export { format as toString };

/**
 * The `apiVersion` of the resource's objects: `group/version`, or `version` for the core group.
 *
 * @example
 * apiVersion(make({ group: "apps", version: "v1", plural: "deployments" })) // "apps/v1"
 */
export const apiVersion = (r: Resource): string => (r.group === "" ? r.version : `${r.group}/${r.version}`);

/**
 * Whether the resource serves the `status` subresource (so status is patched separately).
 *
 * @example
 * hasStatusSubresource(make({ group: "g", version: "v1", plural: "p", subresources: ["status"] })) // true
 */
export const hasStatusSubresource = (r: Resource): boolean => r.subresources.includes("status");

/** Python's `urllib.parse.quote_plus`: unreserved characters kept, spaces as `+`. */
const quotePlus = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replaceAll("%20", "+");

/** What `url` addresses. */
export interface UrlOptions {
  /** The API server's base URL (`https://host:6443`); without it, the path alone. */
  readonly server?: string | undefined;
  readonly namespace?: string | null | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
  readonly params?: Readonly<Record<string, string>> | undefined;
}

/**
 * The API URL of the resource's list (cluster-wide or in a namespace), one object, or one
 * object's subresource, with query parameters.
 *
 * @example
 * url(kex, { namespace: "default", name: "kex1", subresource: "status" })
 * // Result.succeed("/apis/kopf.dev/v1/namespaces/default/kopfexamples/kex1/status")
 */
export const url = (r: Resource, options: UrlOptions = {}): Result.Result<string, ResourceError> => {
  const { server, name, subresource, params } = options;
  const namespace = options.namespace || undefined; // "" and null both mean cluster-wide
  if (subresource !== undefined && name === undefined) {
    return Result.fail(
      new ResourceError({
        reason: "SubresourceWithoutName",
        message: "Subresources can be used only with specific resources by their name.",
      }),
    );
  }
  if (!r.namespaced && namespace !== undefined) {
    return Result.fail(
      new ResourceError({
        reason: "NamespaceForClusterScoped",
        message: "Specific namespaces are not supported for cluster-scoped resources.",
      }),
    );
  }
  if (r.namespaced && namespace === undefined && name !== undefined) {
    return Result.fail(
      new ResourceError({
        reason: "NamespaceRequired",
        message: "Specific namespaces are required for specific namespaced resources.",
      }),
    );
  }
  const inNamespace = r.namespaced === true && namespace !== undefined;
  // Built for every request: appended piece by piece, empty pieces (the core group) left out.
  let path = r.group === "" && r.version === "v1" ? "/api" : "/apis";
  if (r.group !== "") path += `/${r.group}`;
  if (r.version !== "") path += `/${r.version}`;
  if (inNamespace) path += `/namespaces/${namespace}`;
  if (r.plural !== "") path += `/${r.plural}`;
  if (name !== undefined && name !== "") path += `/${name}`;
  if (subresource !== undefined && subresource !== "") path += `/${subresource}`;
  let query = "";
  if (params !== undefined) {
    for (const key of Object.keys(params)) {
      query += `${query === "" ? "" : "&"}${quotePlus(key)}=${quotePlus(params[key] as string)}`;
    }
  }
  const full = query === "" ? path : `${path}?${query}`;
  return Result.succeed(
    server === undefined ? full : `${server.replace(/\/+$/, "")}/${full.replace(/^\/+/, "")}`,
  );
};

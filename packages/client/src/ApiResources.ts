/**
 * Discovery data of the Kubernetes API (`/api`, `/api/{v}`, `/apis`, `/apis/{g}/{v}`) as typed
 * values: the group-versions a cluster serves and the resources of each. `KubeApi.discover`
 * returns these; turning them into `Resource`s and resolving selectors is the watcher's job.
 */

/** One entry of an `APIResourceList` (`metav1.APIResource`). @category models */
export interface APIResource {
  /** The plural name, or `plural/subresource` for subresources. */
  readonly name: string;
  readonly singularName?: string;
  readonly namespaced: boolean;
  readonly kind: string;
  readonly verbs: ReadonlyArray<string>;
  readonly shortNames?: ReadonlyArray<string>;
  readonly categories?: ReadonlyArray<string>;
  readonly group?: string;
  readonly version?: string;
}

/** The resources of one group-version, and whether it is the group's preferred version. @category models */
export interface GroupVersionResources {
  /** `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly preferred: boolean;
  readonly resources: ReadonlyArray<APIResource>;
}

/** One group of `/apis` (`metav1.APIGroup`). @category models */
export interface APIGroup {
  readonly name: string;
  readonly versions: ReadonlyArray<{ readonly groupVersion: string; readonly version: string }>;
  readonly preferredVersion?: { readonly groupVersion: string; readonly version: string };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** The versions listed by `/api` (`APIVersions`). */
export const parseCoreVersions = (body: unknown): ReadonlyArray<string> =>
  isObject(body) ? strings(body.versions) : [];

/** The groups listed by `/apis` (`APIGroupList`); malformed entries are skipped. */
export const parseGroups = (body: unknown): ReadonlyArray<APIGroup> => {
  if (!isObject(body) || !Array.isArray(body.groups)) return [];
  return body.groups.filter(
    (group): group is APIGroup =>
      isObject(group) && typeof group.name === "string" && Array.isArray(group.versions),
  );
};

/** The resources of an `APIResourceList`; malformed entries are skipped. */
export const parseResources = (body: unknown): ReadonlyArray<APIResource> => {
  if (!isObject(body) || !Array.isArray(body.resources)) return [];
  return body.resources.filter(
    (resource): resource is APIResource =>
      isObject(resource) &&
      typeof resource.name === "string" &&
      typeof resource.kind === "string" &&
      typeof resource.namespaced === "boolean" &&
      Array.isArray(resource.verbs),
  );
};

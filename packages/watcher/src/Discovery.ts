/**
 * Cluster discovery as `Resource` values (Kopf's `scan_resources`, docs/behaviour/watching.md#discovery). The client's
 * `KubeApi.discover` reads `/api` and `/apis` (only the groups asked for; a group-version that
 * vanished counts as empty); this module turns its group-versions into `Resource`s: group,
 * version, kind, plural, singular (the lowercased kind when the server leaves it empty, as K3s
 * does for built-ins), short names, categories, subresources (from the `plural/sub` entries,
 * which are not resources themselves), namespaced, preferred, and verbs.
 */
import type { GroupVersionResources } from "@kopf/client";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import type { ApiFailure } from "./ListWatch.ts";

/** The discovery call of the `KubeApi` (which satisfies this port), or a scripted one. */
export interface DiscoveryApi<E extends ApiFailure = ApiFailure> {
  readonly discover: (options?: {
    readonly groups?: ReadonlyArray<string> | undefined;
  }) => Effect.Effect<ReadonlyArray<GroupVersionResources>, E>;
}

/**
 * The resources of one group-version.
 *
 * @example
 * resourcesOf({ group: "kopf.dev", version: "v1", preferred: true, resources: [
 *   { name: "kopfexamples", kind: "KopfExample", namespaced: true, verbs: ["list", "watch"] },
 *   { name: "kopfexamples/status", kind: "KopfExample", namespaced: true, verbs: ["patch"] },
 * ] })
 * // [kopfexamples.v1.kopf.dev with singular "kopfexample", subresources ["status"]]
 */
export const resourcesOf = (groupVersion: GroupVersionResources): ReadonlyArray<Resource.Resource> => {
  const { group, version, preferred, resources } = groupVersion;
  const names = resources.map((entry) => entry.name);
  return resources.flatMap((entry) => {
    const plural = entry.name;
    if (plural === "" || plural.includes("/")) return [];
    return [
      Resource.make({
        group,
        version,
        plural,
        kind: entry.kind,
        singular:
          entry.singularName !== undefined && entry.singularName !== ""
            ? entry.singularName
            : entry.kind.toLowerCase(),
        shortcuts: entry.shortNames ?? [],
        categories: entry.categories ?? [],
        subresources: names
          .filter((name) => name.startsWith(`${plural}/`))
          .map((name) => name.slice(plural.length + 1)),
        namespaced: entry.namespaced,
        preferred,
        verbs: entry.verbs,
      }),
    ];
  });
};

/**
 * Scans the resources of the given API groups (`""` is the core group; `null`: all groups).
 *
 * @example
 * const resources = yield* Discovery.scan(yield* KubeApi, new Set(["", "kopf.dev"]))
 */
export const scan = <E extends ApiFailure>(
  api: DiscoveryApi<E>,
  groups: ReadonlySet<string> | null,
): Effect.Effect<ReadonlyArray<Resource.Resource>, E> =>
  Effect.map(api.discover(groups === null ? {} : { groups: [...groups].sort() }), (found) =>
    found.flatMap(resourcesOf),
  );

/**
 * What an operator serves, as its resource observer would find it: the registry's selectors
 * resolved among the known (discovered) resources, and for each served resource what its
 * handlers make the operator do with it — the facts `Rbac.rules` derives the rules from.
 */
import { Conversion } from "@kopf/admission";
import { Resource, Selector } from "@kopf/structs";
import type * as kopf from "kopf";

/** A served resource and what its handlers make the operator do with it. */
export interface ServedResource {
  readonly resource: Resource.Resource;
  /** Changing handlers, daemons or timers: annotations (progress, last-handled) and patches. */
  readonly patched: boolean;
  /** Handlers whose results are stored in `status` (changing, daemons, timers, on.event). */
  readonly results: boolean;
  /** Some handler needs the finalizer (non-optional on.delete, daemons, timers). */
  readonly finalizer: boolean;
  /**
   * The operator posts events about its objects: Warning events when changing handlers, daemons
   * or timers fail for good, or a patch is rejected (besides the handlers' own `kopf.event` calls).
   */
  readonly events: boolean;
}

/**
 * Whether the operator runs admission: webhook handlers, or typed resources whose conversions
 * the same server answers.
 *
 * @example
 * admissionRuns(registry) // true once kopf.on.validate(...) is registered
 */
export const admissionRuns = (registry: kopf.Registry.Registry): boolean =>
  registry.webhooks.length > 0 || Conversion.hasConversions(registry);

/** What the registry's selectors resolve to among the known resources. */
export interface Resolution {
  readonly served: ReadonlyArray<ServedResource>;
  /** Selectors that match no known resource (their handlers would serve nothing). */
  readonly unresolved: ReadonlyArray<string>;
}

/**
 * The served resources of a registry among the known (discovered) resources, as the operator's
 * resource observer resolves them (preferred versions; webhooks-only resources are not watched).
 *
 * @example
 * ```ts
 * const { served, unresolved } = Rbac.resolve(registry, discovered)
 * ```
 */
export const resolve = (
  registry: kopf.Registry.Registry,
  known: ReadonlyArray<Resource.Resource>,
): Resolution => {
  const buckets = ["indexing", "watching", "spawning", "changing"] as const;
  const unresolved = registry
    .selectors()
    .filter((selector) => Selector.select(selector, known).length === 0)
    .map((selector) =>
      typeof selector.anyName === "string" ? `'${selector.anyName}'` : Selector.format(selector),
    );
  const watched = new Map<string, Resource.Resource>();
  for (const bucket of buckets) {
    for (const selector of registry.selectors(bucket)) {
      for (const resource of Selector.select(selector, known))
        watched.set(Resource.format(resource), resource);
    }
  }
  const served = [...watched.values()]
    .sort((a, b) => Resource.format(a).localeCompare(Resource.format(b)))
    .map((resource): ServedResource => {
      const changing = registry.changingFor(resource);
      const spawning = registry.spawningFor(resource);
      const watching = registry.watchingFor(resource);
      return {
        resource,
        patched: changing.length > 0 || spawning.length > 0,
        results: changing.length > 0 || spawning.length > 0 || watching.length > 0,
        finalizer: changing.some((h) => h.requiresFinalizer) || spawning.some((h) => h.requiresFinalizer),
        events: changing.length > 0 || spawning.length > 0,
      };
    });
  return { served, unresolved: [...new Set(unresolved)] };
};

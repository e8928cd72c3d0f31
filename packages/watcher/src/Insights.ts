/**
 * Insights: which of the cluster's resources the operator serves, resolved from the registry's
 * selectors (Kopf's `revise_resources`, docs/behaviour/watching.md#discovery). Pure: given the selectors of each
 * purpose and a scan (of the whole cluster or of one API group), it computes the new sets and
 * Kopf's warnings.
 *
 * - `webhooks`: resources matched by validate/mutate selectors (passively served, never checked);
 * - `indexed`: resources matched by index selectors (not checked either);
 * - `watched`: resources matched by index, event, daemon, timer and changing selectors, then
 *   - a specific selector matching two or more resources serves none of them (core-v1
 *     precedence applies first, so `pods` is not ambiguous);
 *   - selectors matching nothing are reported as unresolved;
 *   - resources lacking the `watch` or `list` verb are removed;
 *   - resources lacking `patch` are removed if a daemon, timer or changing selector matches them.
 */
import type { Registry } from "@kopf/registry";
import { Resource, Selector } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Result from "effect/Result";

type Res = Resource.Resource;
type Sel = Selector.Selector;

/** The registry's selectors, grouped by what the operator does with the matched resources. */
export interface SelectorSets {
  /** Selectors of validating and mutating webhook handlers. */
  readonly webhooks: ReadonlyArray<Sel>;
  /** Selectors of index handlers. */
  readonly indexed: ReadonlyArray<Sel>;
  /** Selectors of index, event, daemon, timer and changing handlers. */
  readonly watched: ReadonlyArray<Sel>;
  /** Selectors of handlers that store state on the objects: daemons, timers, changing handlers. */
  readonly patched: ReadonlyArray<Sel>;
}

/**
 * The selector sets of a registry's handlers (the registry de-duplicates each bucket).
 *
 * @example
 * const registry = Registry.make()
 * registry.on.create("kopfexamples", function created() {})
 * Insights.selectorSetsOf(registry).patched // [Selector(any_name='kopfexamples')]
 */
export const selectorSetsOf = (registry: Pick<Registry.Registry, "selectors">): SelectorSets => ({
  webhooks: registry.selectors("webhooks"),
  indexed: registry.selectors("indexing"),
  watched: [
    ...registry.selectors("indexing"),
    ...registry.selectors("watching"),
    ...registry.selectors("spawning"),
    ...registry.selectors("changing"),
  ],
  patched: [...registry.selectors("spawning"), ...registry.selectors("changing")],
});

/** The served resources per purpose, each sorted by `Resource.toString`. */
export interface Insights {
  readonly webhooks: ReadonlyArray<Res>;
  readonly indexed: ReadonlyArray<Res>;
  readonly watched: ReadonlyArray<Res>;
}

/** The new insights and the warnings to log. */
export interface Revision {
  readonly insights: Insights;
  readonly warnings: ReadonlyArray<string>;
}

/** Nothing served yet. */
export const empty: Insights = { webhooks: [], indexed: [], watched: [] };

const keyOf = (resource: Res): string => Resource.toString(resource);

const sorted = (resources: Iterable<Res>): ReadonlyArray<Res> =>
  [...new Map([...resources].map((r) => [keyOf(r), r] as const)).values()].sort((a, b) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
  );

/** Selectors without duplicates: equal ones (by Kopf's repr) once; predicates by identity. */
const unique = (selectors: ReadonlyArray<Sel>): ReadonlyArray<Sel> => {
  const seen = new Map<unknown, Sel>();
  for (const selector of selectors) {
    const key = selector.fn !== undefined ? selector.fn : Selector.toString(selector);
    if (!seen.has(key)) seen.set(key, selector);
  }
  return [...seen.values()];
};

/**
 * Replaces the resources of `group` (all of them when `group` is `null`) by those the selectors
 * select from the new scan `source`; resources of other groups stay.
 */
const update = (
  current: ReadonlyArray<Res>,
  selectors: ReadonlyArray<Sel>,
  group: string | null,
  source: ReadonlyArray<Res>,
): Map<string, Res> => {
  const kept = new Map(
    current.filter((r) => group !== null && r.group !== group).map((r) => [keyOf(r), r] as const),
  );
  for (const selector of selectors) {
    for (const resource of Selector.select(selector, source)) kept.set(keyOf(resource), resource);
  }
  return kept;
};

const formatSet = (resources: Iterable<Res>): string => `{${sorted(resources).map(keyOf).join(", ")}}`;

/**
 * Revises the insights after a scan of `group` (or of everything, `group: null`).
 *
 * @example
 * const revision = Insights.revise(Insights.empty, selectors, null, scannedResources)
 * revision.insights.watched // the resources to start watchers for
 * revision.warnings // e.g. ["Unresolved resources cannot be served (try creating their CRDs): …"]
 */
export const revise = (
  insights: Insights,
  selectors: SelectorSets,
  group: string | null,
  source: ReadonlyArray<Res>,
): Revision => {
  const warnings: Array<string> = [];
  const watchedSelectors = unique(selectors.watched);
  const patchedSelectors = unique(selectors.patched);
  const webhooks = update(insights.webhooks, unique(selectors.webhooks), group, source);
  const indexed = update(insights.indexed, unique(selectors.indexed), group, source);
  const watched = update(insights.watched, watchedSelectors, group, source);

  for (const selector of watchedSelectors) {
    const selected = Selector.select(selector, [...watched.values()]);
    if (Selector.isSpecific(selector) && selected.length > 1) {
      warnings.push(
        "Ambiguous resources will not be served (try specifying API groups): " +
          `${Selector.toString(selector)} => [${sorted(selected).map(keyOf).join(", ")}]`,
      );
      for (const resource of selected) watched.delete(keyOf(resource));
    }
  }

  const unresolved = watchedSelectors.filter((s) => Selector.select(s, [...watched.values()]).length === 0);
  if (unresolved.length > 0) {
    warnings.push(
      `Unresolved resources cannot be served (try creating their CRDs): ${unresolved.map(Selector.toString).join(", ")}`,
    );
  }

  const verbsOf = (r: Res): ReadonlyArray<string> => r.verbs;
  const nonWatchable = [...watched.values()].filter(
    (r) => !verbsOf(r).includes("watch") || !verbsOf(r).includes("list"),
  );
  const nonPatchable = [...watched.values()].filter(
    (r) => !verbsOf(r).includes("patch") && !nonWatchable.includes(r),
  );
  const patchingRequired = patchedSelectors.some((s) => Selector.select(s, nonPatchable).length > 0);
  if (nonWatchable.length > 0) {
    warnings.push(`Non-watchable resources will not be served: ${formatSet(nonWatchable)}`);
    for (const resource of nonWatchable) watched.delete(keyOf(resource));
  }
  if (nonPatchable.length > 0 && patchingRequired) {
    warnings.push(`Non-patchable resources will not be served: ${formatSet(nonPatchable)}`);
    for (const resource of nonPatchable) watched.delete(keyOf(resource));
  }

  return {
    insights: {
      webhooks: sorted(webhooks.values()),
      indexed: sorted(indexed.values()),
      watched: sorted(watched.values()),
    },
    warnings,
  };
};

/** Whether two insights serve the same resources (by group, version and plural). */
export const equals = (a: Insights, b: Insights): boolean => {
  const same = (x: ReadonlyArray<Res>, y: ReadonlyArray<Res>) =>
    x.length === y.length && x.every((r, i) => keyOf(r) === keyOf(y[i] as Res));
  return same(a.webhooks, b.webhooks) && same(a.indexed, b.indexed) && same(a.watched, b.watched);
};

/**
 * The API groups a scan must cover for these selectors: `null` (all groups) when any selector
 * has no group; otherwise the selectors' groups plus `extra` (the framework's own groups).
 *
 * @example
 * Insights.groupsToScan([Selector for "kopf.dev/v1 kopfexamples"], [""]) // Set { "kopf.dev", "" }
 */
export const groupsToScan = (
  selectors: ReadonlyArray<Sel>,
  extra: ReadonlyArray<string> = [],
): ReadonlySet<string> | null => {
  const groups = new Set<string>(extra);
  for (const selector of selectors) {
    if (selector.group === undefined) return null;
    groups.add(selector.group);
  }
  return groups;
};

/** Why a selector could not be resolved to one resource. */
export type ResolveErrorReason = "Unresolved" | "Ambiguous";

/** A selector matching no resource, or several (for a specific selector). */
export class ResolveError extends Data.TaggedError("ResolveError")<{
  readonly reason: ResolveErrorReason;
  readonly message: string;
  readonly matches: ReadonlyArray<Res>;
}> {}

/**
 * The one resource a selector names among the discovered ones (core-v1 precedence applies), or
 * a clear error: none matches (the CRD may not exist yet), or several do (specify the group).
 * For the framework's own resources (`Selector.NAMESPACES`, `Selector.CRDS`, …) and tools.
 *
 * @example
 * Insights.resolve(Selector.NAMESPACES, observed.resources) // Result.succeed(namespaces.v1)
 */
export const resolve = (selector: Sel, resources: ReadonlyArray<Res>): Result.Result<Res, ResolveError> => {
  const matches = sorted(Selector.select(selector, resources));
  const [only, ...rest] = matches;
  if (only === undefined) {
    return Result.fail(
      new ResolveError({
        reason: "Unresolved",
        message: `Unresolved resource (try creating its CRD): ${Selector.toString(selector)}`,
        matches,
      }),
    );
  }
  if (rest.length > 0) {
    return Result.fail(
      new ResolveError({
        reason: "Ambiguous",
        message:
          "Ambiguous resource (try specifying the API group): " +
          `${Selector.toString(selector)} => [${matches.map(keyOf).join(", ")}]`,
        matches,
      }),
    );
  }
  return Result.succeed(only);
};

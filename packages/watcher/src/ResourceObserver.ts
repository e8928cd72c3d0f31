/**
 * The resources an operator serves, kept current while it runs (Kopf's `resource_observer`,
 * docs/behaviour/watching.md#discovery): an initial scan of the needed API groups resolved into {@link Insights}, then a
 * watch on CustomResourceDefinitions; any change of a CRD (not the initial listing) rescans only
 * that CRD's `spec.group`, so resources appear and disappear as CRDs are created and deleted.
 * The latest scan per group is cached in what it publishes, so the framework's own resources
 * (the backbone: `Selector.NAMESPACES`, `Selector.CRDS`, …) can be resolved from it.
 *
 * - `scanning.disabled`: the initial scan only;
 * - 403 on the CRD watch: Kopf's warning, the initial scan only;
 * - failed scans are retried with a backoff and logged; they never stop the observer;
 * - after every listing of the CRD watcher (the first one too), everything is rescanned once:
 *   Kopf ignores listings and so misses CRDs created between its scan and its CRD watch, or
 *   while a relisting after 410 Gone was due;
 * - a CRD event's rescan is repeated (every 200 ms, for up to 10 s) until discovery shows what the
 *   event says ({@link CrdServing}): a real API server sends the events before its discovery
 *   serves (or unlists) the kind, and Kopf, rescanning once, can miss a CRD for good. These
 *   rescans run beside the CRD watch, one per CRD (a newer event replaces the older's).
 */
import { Resource, Selector } from "@kopf/structs";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as FiberMap from "effect/FiberMap";
import * as Schedule from "effect/Schedule";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import * as CrdServing from "./CrdServing.ts";
import * as Discovery from "./Discovery.ts";
import * as Insights from "./Insights.ts";
import type { ApiFailure, ListWatch } from "./ListWatch.ts";
import * as Watcher from "./Watcher.ts";

/** What the observer publishes. */
export interface Observed {
  /** Every resource of the scanned groups (the cache). */
  readonly resources: ReadonlyArray<Resource.Resource>;
  /** The served resources per purpose. */
  readonly insights: Insights.Insights;
}

/** What to observe and how. */
export interface Options {
  /** The registry's selectors per purpose. */
  readonly selectors: Insights.SelectorSets;
  /** API groups always scanned besides the selectors' (the framework's own: core, CRDs, …). */
  readonly backboneGroups?: ReadonlyArray<string> | undefined;
  /** `settings.scanning.disabled`: no CRD watching. */
  readonly scanningDisabled?: boolean | undefined;
  /** Options of the CRD watcher (from `settings.watching`). */
  readonly watcher?: Watcher.Options | undefined;
  /** Backoff between attempts of a failed scan. Default: exponential from 1 s, capped at 60 s. */
  readonly scanRetry?: Schedule.Schedule<unknown, unknown> | undefined;
}

/** The running observer. */
export interface ResourceObserver {
  readonly observed: SubscriptionRef.SubscriptionRef<Observed>;
}

/** The groups Kopf always scans: core, CRDs, webhook configurations, and its peering groups. */
export const defaultBackboneGroups: ReadonlyArray<string> = [
  "",
  "apiextensions.k8s.io",
  "admissionregistration.k8s.io",
  "kopf.dev",
  "zalando.org",
];

/** How long a CRD event's rescan is repeated until discovery has caught up with it. */
const CATCH_UP = { attempts: 50, interval: Duration.millis(200) } as const;

const defaultRetry: Schedule.Schedule<unknown, unknown> = Schedule.min([
  Schedule.exponential(Duration.seconds(1)),
  Schedule.spaced(Duration.seconds(60)),
]);

/** The cached resources after a scan of `group` (`null`: all): that group's entries replaced. */
export const mergeScan = (
  cache: ReadonlyArray<Resource.Resource>,
  group: string | null,
  scanned: ReadonlyArray<Resource.Resource>,
): ReadonlyArray<Resource.Resource> =>
  group === null
    ? scanned
    : [...cache.filter((r) => r.group !== group), ...scanned.filter((r) => r.group === group)];

/**
 * Starts observing in the current scope; returns after the initial scan succeeded.
 *
 * @example
 * const observer = yield* ResourceObserver.make(discoveryApi, crdListWatch, { selectors })
 * yield* Stream.runForEach(SubscriptionRef.changes(observer.observed), ({ insights }) => orchestrate(insights.watched))
 */
export const make = <E extends ApiFailure>(
  api: Discovery.DiscoveryApi<E>,
  crds: (crd: Resource.Resource) => ListWatch<E>,
  options: Options,
): Effect.Effect<ResourceObserver, never, Scope.Scope> =>
  Effect.gen(function* () {
    const selectors = options.selectors;
    const all = [...selectors.webhooks, ...selectors.indexed, ...selectors.watched, ...selectors.patched];
    const groups = Insights.groupsToScan(all, options.backboneGroups ?? defaultBackboneGroups);
    const retry = options.scanRetry ?? defaultRetry;

    const scanning = (group: string | null) =>
      Discovery.scan(api, group === null ? groups : new Set([group])).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(
            `Scanning of the API resources (${group ?? "all groups"}) failed; will retry: ${error.message}`,
          ),
        ),
        Effect.retry(retry),
      );

    const revise = (previous: Observed, group: string | null, scanned: ReadonlyArray<Resource.Resource>) =>
      Effect.gen(function* () {
        const revision = Insights.revise(previous.insights, selectors, group, scanned);
        for (const warning of revision.warnings) yield* Effect.logWarning(warning);
        return { resources: mergeScan(previous.resources, group, scanned), insights: revision.insights };
      });

    const first = yield* scanning(null).pipe(Effect.orDie);
    const observed = yield* SubscriptionRef.make<Observed>(
      yield* revise({ resources: [], insights: Insights.empty }, null, first),
    );

    const crd = Selector.select(Selector.CRDS, first)[0];
    if (options.scanningDisabled === true || crd === undefined) return { observed };

    const rescan = (group: string | null, expected: CrdServing.Expectation = CrdServing.unknown) =>
      Effect.gen(function* () {
        let scanned = yield* scanning(group).pipe(Effect.orDie);
        for (
          let attempt = 0;
          attempt < CATCH_UP.attempts && !CrdServing.isMet(expected, scanned);
          attempt++
        ) {
          yield* Effect.sleep(CATCH_UP.interval);
          scanned = yield* scanning(group).pipe(Effect.orDie);
        }
        yield* SubscriptionRef.updateEffect(observed, (previous) => revise(previous, group, scanned));
      });
    const rescans = yield* FiberMap.make<string>();

    const watched = Watcher.fromListWatch(
      crds(crd),
      { resource: Resource.toString(crd), namespace: null },
      options.watcher ?? {},
    );
    yield* Effect.forkScoped(
      Stream.runForEachWhile(watched, (item: Watcher.Item) =>
        Effect.gen(function* () {
          if (item._tag === "Problem" && item.failure?.reason === "Forbidden") {
            yield* Effect.logWarning(
              "Not enough permissions to watch for resources: changes (creation/deletion/updates) will not be " +
                "noticed; the resources are only refreshed on operator restarts.",
            );
            return false;
          }
          // A (re)listing may hide CRD changes (between the initial scan and the first listing,
          // or while a relisting after 410 Gone was due): rescan everything once it is done.
          if (item._tag === "Listed") yield* rescan(null);
          if (item._tag === "Event" && item.type !== null) {
            const group = (item.object.spec as { group?: unknown } | undefined)?.group;
            // Groups no selector can match are not scanned (Kopf scans them, to no effect).
            if (typeof group === "string" && group !== "" && (groups === null || groups.has(group))) {
              const expected = CrdServing.expectation(item.type, item.object);
              const key = item.object.metadata?.name ?? group;
              yield* FiberMap.run(rescans, key, rescan(group, expected));
            }
          }
          return true;
        }),
      ),
    );
    return { observed };
  });

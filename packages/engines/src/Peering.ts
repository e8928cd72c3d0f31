/**
 * Peering (Kopf's `peering` engine, docs/behaviour/peering.md): operators serving the same resources see each other
 * through `KopfPeering` (namespaced) or `ClusterKopfPeering` objects in Kopf's format, so Python
 * Kopf peers and ours interoperate. Each operator keeps its presence record alive in the
 * peering object's status and watches it: a live peer with a higher priority pauses this
 * operator; one with the same priority pauses everybody (a conflict, with a warning); once the
 * blocking peers are gone or expired, it resumes. Dead records are cleaned; on exit the own
 * record is removed. Both API groups (`kopf.dev`, legacy `zalando.org`) are used when present.
 *
 * Namespaced operators peer in every namespace they serve, as Kopf does: the existing namespaces
 * matching their patterns, followed as namespaces come and go; each (peering resource ×
 * namespace) has its {@link Presence}, and the operator is paused while any of them wants it.
 * The served namespaces are the runtime's (`RootTasks.Watching.follow`: the operator's one
 * namespace observer), followed in step with the watches: a new namespace's presence starts —
 * with a mandatory peering, pausing the operator — before that namespace is watched, as Kopf
 * starts a namespace's peering before its watchers. Pausing is reported through `onPause`;
 * `Operating` turns it into a pause of the runtime's watching and the daemons engine's pause.
 * `freeze`/`resume` are `kopf freeze`/`kopf resume`.
 */
import { type ApiError, KubeApi } from "@kopf/client";
import type { RootTasks } from "@kopf/runtime";
import { OperatorSettings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import { ListWatch, NamespaceObserver, Watcher } from "@kopf/watcher";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as SubscriptionRef from "effect/SubscriptionRef";
import * as Ensemble from "./internal/ensemble.ts";
import * as Presence from "./Presence.ts";

export { type Target, touch } from "./Presence.ts";

/** Why peering could not be done. */
export class PeeringError extends Data.TaggedError("PeeringError")<{
  readonly reason: "CrdMissing" | "NoTargets" | "Api";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** How this operator peers (`mandatory`: paused while the CRD or the object is missing). */
export interface PeeringOptions extends Presence.PresenceOptions {
  /** `ClusterKopfPeering` objects (cluster-wide), or `KopfPeering` in each served namespace. */
  readonly clusterwide: boolean;
}

/** Where peering meets the running operator. */
export interface PeeringSeam {
  /**
   * Follows the served namespaces in step with the watches (the runtime's
   * `RootTasks.Watching.follow`); peering uses the `KopfPeering` objects of every namespace in
   * the sets it gets (`{null}` when cluster-wide).
   */
  readonly follow: RootTasks.Watching["follow"];
  /** Hears whether the operator must be paused (every change, one at a time). */
  readonly onPause: (paused: boolean) => Effect.Effect<void>;
}

const NAMESPACES = Resource.make({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
});

const GROUPS = ["kopf.dev", "zalando.org"];

/** Seconds between looks for peering CRDs that did not exist at start. */
export const REDISCOVERY_SECONDS = 30;

/**
 * The peering resources served by the cluster (both groups when both exist).
 *
 * @example
 * ```ts
 * const resources = yield* Peering.resources(true) // [clusterkopfpeerings.v1.kopf.dev]
 * ```
 */
export const resources = (
  clusterwide: boolean,
): Effect.Effect<ReadonlyArray<Resource.Resource>, ApiError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const plural = clusterwide ? "clusterkopfpeerings" : "kopfpeerings";
    const discovered = yield* api.discover({ groups: GROUPS });
    const found: Array<Resource.Resource> = [];
    for (const gv of discovered) {
      const main = gv.resources.find((r) => r.name === plural);
      if (main === undefined || !gv.preferred) continue;
      found.push(
        Resource.make({
          group: gv.group,
          version: gv.version,
          plural,
          kind: main.kind,
          namespaced: main.namespaced,
          subresources: gv.resources.some((r) => r.name === `${plural}/status`) ? ["status"] : [],
          verbs: main.verbs,
          preferred: true,
        }),
      );
    }
    return found;
  });

/**
 * The peering objects to use: each resource in each served namespace (cluster-scoped resources
 * once, with no namespace).
 *
 * @example
 * ```ts
 * Peering.targets([kopfpeerings], new Set(["ns1", "ns2"])) // [{ resource, namespace: "ns1" }, { resource, namespace: "ns2" }]
 * ```
 */
export const targets = (
  found: ReadonlyArray<Resource.Resource>,
  namespaces: ReadonlySet<NamespaceObserver.Namespace>,
): ReadonlyArray<Presence.Target> =>
  found.flatMap(
    (resource): ReadonlyArray<Presence.Target> =>
      resource.namespaced
        ? [...namespaces]
            .filter((ns): ns is string => ns !== null)
            .map((namespace) => ({ resource, namespace }))
        : [{ resource, namespace: null }],
  );

/**
 * The namespaces the patterns match now, for `kopf freeze`/`kopf resume` (one listing, as
 * Kopf's touch command; `{null}` cluster-wide), with the namespace observer the operator uses.
 */
const served = (clusterwide: boolean, namespaces: ReadonlyArray<NamespaceObserver.Pattern>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const settings = yield* OperatorSettings;
      const observer = yield* NamespaceObserver.make(ListWatch.fromKubeApi(api, NAMESPACES, null), {
        clusterwide,
        namespaces,
        scanningDisabled: settings.scanning.disabled,
        watcher: Watcher.optionsFromSettings(settings),
      });
      return yield* SubscriptionRef.get(observer.namespaces);
    }),
  );

/**
 * Peers until interrupted: keeps the own records alive in every target and reports whether the
 * operator must be paused (`true` while any target wants it, or while a mandatory peering has
 * no peering resource at all). Namespaced, the targets follow the served namespaces: a
 * namespace that appears gets a presence — starting with a pause if mandatory, reported before
 * the set is acknowledged, so before the namespace is watched — and one that goes away loses it
 * (and its verdict). Without a peering CRD and not mandatory, it runs standalone; in both cases
 * it looks for the CRDs again every {@link REDISCOVERY_SECONDS} and starts peering once they
 * appear.
 *
 * @example
 * ```ts
 * // in a root task:
 * yield* Peering.run(options, { follow: context.watching.follow, onPause: (paused) => pause.set(paused) })
 * ```
 */
export const run = (options: PeeringOptions, seam: PeeringSeam): Effect.Effect<void, never, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const discover = resources(options.clusterwide).pipe(
        Effect.catch((error) =>
          Effect.as(Effect.logWarning(`Cannot discover the peering resources: ${error.message}`), []),
        ),
      );
      let found = yield* discover;
      if (found.length === 0) {
        if (options.mandatory) {
          yield* Effect.logWarning("The peering CRD is missing: the operator is paused until it appears.");
          yield* seam.onPause(true);
        } else {
          yield* Effect.logInfo("Default peering object is not found, falling back to the standalone mode.");
        }
      }
      // The CRDs may be applied later: look for them again now and then.
      while (found.length === 0) {
        yield* Effect.sleep(`${REDISCOVERY_SECONDS * 1000} millis`);
        found = yield* discover;
      }
      const present = found;
      const ensemble = yield* Ensemble.make(
        (target, report) =>
          Effect.all([Presence.keepAlive(target, options), Presence.observe(target, options, report)], {
            concurrency: "unbounded",
            discard: true,
          }),
        seam.onPause,
        options.mandatory,
      );
      // A new target's initial verdict (a pause, if mandatory) is reported within `adjust`.
      yield* seam.follow((namespaces) => ensemble.adjust(targets(present, namespaces)));
    }),
  );

/** Options of {@link freeze} and {@link resume} (Kopf's `kopf freeze`/`kopf resume`). */
export interface FreezeOptions {
  /** A manual identity (`user@host` unless `--id`). */
  readonly identity: string;
  /** `-P/--peering NAME` (required). */
  readonly name: string;
  readonly clusterwide: boolean;
  /** `-n`: namespace patterns; the peering objects of the existing namespaces they match. */
  readonly namespaces: ReadonlyArray<NamespaceObserver.Pattern>;
  /** Default 100 (666 with `--dev`). */
  readonly priority?: number | undefined;
  /** Seconds the freeze lasts (required by `freeze`). */
  readonly lifetime: number;
}

const command = (options: FreezeOptions, lifetime: number) =>
  Effect.gen(function* () {
    const found = yield* resources(options.clusterwide).pipe(
      Effect.mapError((error) => new PeeringError({ reason: "Api", message: error.message, cause: error })),
    );
    if (found.length === 0) {
      return yield* new PeeringError({
        reason: "CrdMissing",
        message: `Cannot find the peering resource (${options.clusterwide ? "clusterkopfpeerings" : "kopfpeerings"}).`,
      });
    }
    // As Kopf's touch command: the namespaces the patterns match now (one listing).
    const all = targets(found, yield* served(options.clusterwide, options.namespaces));
    if (all.length === 0) {
      return yield* new PeeringError({
        reason: "NoTargets",
        message:
          options.namespaces.length === 0
            ? "No namespaces to freeze or resume: pass --namespace or --all-namespaces."
            : `No existing namespace matches ${options.namespaces.map(String).join(", ")}: nothing to freeze or resume.`,
      });
    }
    const peer = {
      identity: options.identity,
      name: options.name,
      priority: options.priority ?? 100,
      lifetime,
      stealth: false,
    };
    yield* Effect.forEach(all, (target) => Presence.touch(target, peer, lifetime), {
      concurrency: "unbounded",
      discard: true,
    }).pipe(
      Effect.mapError((error) => new PeeringError({ reason: "Api", message: error.message, cause: error })),
    );
  });

/**
 * `kopf freeze`: writes a presence record with the given priority (default 100) and lifetime
 * into the peering objects, pausing operators with lower or equal priorities until it expires.
 *
 * @example
 * ```ts
 * yield* Peering.freeze({ identity: "me@box", name: "default", clusterwide: true, namespaces: [], lifetime: 600 })
 * ```
 */
export const freeze = (options: FreezeOptions): Effect.Effect<void, PeeringError, KubeApi> =>
  command(options, options.lifetime);

/**
 * `kopf resume`: removes the freeze record of the identity.
 *
 * @example
 * ```ts
 * yield* Peering.resume({ identity: "me@box", name: "default", clusterwide: true, namespaces: [], lifetime: 0 })
 * ```
 */
export const resume = (
  options: Omit<FreezeOptions, "lifetime">,
): Effect.Effect<void, PeeringError, KubeApi> => command({ ...options, lifetime: 0 }, 0);

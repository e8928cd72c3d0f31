/**
 * An explicit registry of handlers (Kopf's `OperatorRegistry`): six buckets (activities,
 * changing, watching, spawning, indexing, webhooks) filled by the `on.*` registration calls in
 * registration order, and the read accessors the runtime uses (handlers per bucket and
 * resource, selectors, extra fields, activity handlers with fallbacks).
 *
 * Core code never reads a default registry: registries are passed explicitly; only the `kopf`
 * facade keeps a default one.
 */
import type { CustomResource } from "@kopf/resources";
import type { FieldPath, Resource, Selector } from "@kopf/structs";
import type {
  ActivityHandler,
  ChangingHandler,
  Handler,
  IndexingHandler,
  ResourceHandler,
  SpawningHandler,
  WatchingHandler,
  WebhookHandler,
} from "./Handler.ts";
import type { Activity } from "./HandlerContext.ts";
import { deduplicated, matchesResource } from "./Matching.ts";
import * as On from "./On.ts";
import * as ResourceSpec from "./ResourceSpec.ts";

/** A typed resource as the registry keeps it (any versions). */
export type DeclaredResource = CustomResource.CustomResource<any, any>;

/** The resource-level buckets. */
export type Bucket = "changing" | "watching" | "spawning" | "indexing" | "webhooks";

/** How a registry is set up. */
export interface RegistryOptions {
  /**
   * Resolves a model class used as a resource (e.g. a kubernetes-fluent-client kind) to its
   * names; the `kopf` facade provides one. Without it, model classes are rejected.
   */
  readonly resolveModel?: ResourceSpec.ModelResolver;
  /**
   * Told about each body of a typed resource (`kopf.resource`) that does not decode, besides
   * the handler's warning log line; the `kopf` facade posts it as a Warning event.
   */
  readonly onUndecodable?: ((body: unknown, message: string) => void) | undefined;
}

/**
 * A registry of handlers. `S` is the type of `settings` that activities receive.
 *
 * @example
 * const registry = Registry.make()
 * registry.on.create("kopfexamples", function createFn({ logger }) { logger.info("hi") })
 * registry.changing.length // 1
 */
export interface Registry<S = unknown, M = S> {
  /** The registration calls appending to this registry (`M`: the settings of startup handlers). */
  readonly on: On.On<S, M>;
  /** Appends an already built handler to its bucket (e.g. the runtime's fallback logins). */
  readonly append: (handler: Handler) => void;
  /**
   * Records a typed resource of this operator (`kopf.resource`): `kopf crd` prints its CRD and
   * the admission server serves its conversion webhook. Declaring one again replaces it.
   */
  readonly declare: (resource: DeclaredResource) => void;
  /** The declared typed resources, in declaration order. */
  readonly resources: ReadonlyArray<DeclaredResource>;
  readonly activities: ReadonlyArray<ActivityHandler>;
  readonly changing: ReadonlyArray<ChangingHandler>;
  readonly watching: ReadonlyArray<WatchingHandler>;
  readonly spawning: ReadonlyArray<SpawningHandler>;
  readonly indexing: ReadonlyArray<IndexingHandler>;
  readonly webhooks: ReadonlyArray<WebhookHandler>;
  /**
   * The handlers of an activity, de-duplicated: the regular ones, or, only when there are none,
   * the fallback ones.
   */
  activityHandlers(activity: Activity): ReadonlyArray<ActivityHandler>;
  /** The changing handlers serving a resource kind (de-duplicated per cause by `Matching.changingHandlers`). */
  changingFor(resource: Resource.Resource): ReadonlyArray<ChangingHandler>;
  watchingFor(resource: Resource.Resource): ReadonlyArray<WatchingHandler>;
  spawningFor(resource: Resource.Resource): ReadonlyArray<SpawningHandler>;
  indexingFor(resource: Resource.Resource): ReadonlyArray<IndexingHandler>;
  webhooksFor(resource: Resource.Resource): ReadonlyArray<WebhookHandler>;
  /** Whether any handler of the bucket serves the resource kind. */
  hasHandlers(bucket: Bucket, resource: Resource.Resource): boolean;
  hasChangingHandlers(resource: Resource.Resource): boolean;
  /** The distinct selectors of one bucket, or of all resource buckets. */
  selectors(bucket?: Bucket): ReadonlyArray<Selector.Selector>;
  /**
   * The fields of watching, changing and spawning handlers of the resource kind (kept in the
   * essence even outside `spec`); index handlers are excluded, as in Kopf.
   */
  extraFields(resource: Resource.Resource): ReadonlyArray<FieldPath.FieldPath>;
}

const distinctBy = <A>(items: ReadonlyArray<A>, key: (a: A) => unknown): ReadonlyArray<A> => {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

/**
 * A new, empty registry.
 *
 * @example
 * const registry = Registry.make<OperatorSettings, Settings.MutableSettings>()
 * registry.on.startup(function configure({ settings }) { settings.posting.level = "Warn" })
 */
export const make = <S = unknown, M = S>(options: RegistryOptions = {}): Registry<S, M> => {
  const activities: Array<ActivityHandler> = [];
  const buckets = {
    changing: [] as Array<ChangingHandler>,
    watching: [] as Array<WatchingHandler>,
    spawning: [] as Array<SpawningHandler>,
    indexing: [] as Array<IndexingHandler>,
    webhooks: [] as Array<WebhookHandler>,
  };

  // What is asked per resource kind on every processing cycle (the handlers of a bucket, the extra
  // fields) is remembered per resource until a handler is added.
  let known = new WeakMap<Resource.Resource, Map<string, unknown>>();
  const remembered = <A>(resource: Resource.Resource, what: string, compute: () => A): A => {
    let answers = known.get(resource);
    if (answers === undefined) {
      answers = new Map();
      known.set(resource, answers);
    }
    if (answers.has(what)) return answers.get(what) as A;
    const answer = compute();
    answers.set(what, answer);
    return answer;
  };

  const append = (handler: Handler): void => {
    known = new WeakMap();
    switch (handler._tag) {
      case "ActivityHandler":
        activities.push(handler);
        break;
      case "ChangingHandler":
        buckets.changing.push(handler);
        break;
      case "WatchingHandler":
        buckets.watching.push(handler);
        break;
      case "DaemonHandler":
      case "TimerHandler":
        buckets.spawning.push(handler);
        break;
      case "IndexingHandler":
        buckets.indexing.push(handler);
        break;
      case "WebhookHandler":
        buckets.webhooks.push(handler);
        break;
    }
  };

  const forResource = <B extends Bucket>(
    bucket: B,
    resource: Resource.Resource,
  ): ReadonlyArray<(typeof buckets)[B][number]> =>
    remembered(resource, bucket, () =>
      (buckets[bucket] as ReadonlyArray<(typeof buckets)[B][number]>).filter((h) =>
        matchesResource(h, resource),
      ),
    );

  const on = On.make<S, M>({
    append,
    selector: (resource) => ResourceSpec.toSelector(resource, options.resolveModel),
    onUndecodable: options.onUndecodable,
  });

  const declared = new Map<string, DeclaredResource>();
  const declare = (resource: DeclaredResource): void => {
    const key = `${resource.definition.plural}.${resource.definition.group}`;
    declared.delete(key);
    declared.set(key, resource);
  };

  const hasHandlers = (bucket: Bucket, resource: Resource.Resource): boolean =>
    forResource(bucket, resource).length > 0;

  return {
    on,
    append,
    declare,
    get resources() {
      return [...declared.values()];
    },
    get activities() {
      return [...activities];
    },
    get changing() {
      return [...buckets.changing];
    },
    get watching() {
      return [...buckets.watching];
    },
    get spawning() {
      return [...buckets.spawning];
    },
    get indexing() {
      return [...buckets.indexing];
    },
    get webhooks() {
      return [...buckets.webhooks];
    },
    activityHandlers: (activity) => {
      const regular = activities.filter((h) => h.activity === activity && !h.fallback);
      return deduplicated(regular.length > 0 ? regular : activities.filter((h) => h.activity === activity));
    },
    changingFor: (resource) => forResource("changing", resource),
    watchingFor: (resource) => forResource("watching", resource),
    spawningFor: (resource) => forResource("spawning", resource),
    indexingFor: (resource) => forResource("indexing", resource),
    webhooksFor: (resource) => forResource("webhooks", resource),
    hasHandlers,
    hasChangingHandlers: (resource) => hasHandlers("changing", resource),
    selectors: (bucket) => {
      const handlers: ReadonlyArray<ResourceHandler> =
        bucket === undefined ? Object.values(buckets).flat() : buckets[bucket];
      const selectors = handlers.flatMap((h) => (h.selector === undefined ? [] : [h.selector]));
      return ResourceSpec.distinct(selectors);
    },
    extraFields: (resource) =>
      remembered(resource, "extraFields", () => {
        const handlers: ReadonlyArray<ResourceHandler> = [
          ...buckets.watching,
          ...buckets.changing,
          ...buckets.spawning,
        ];
        const fields = handlers.flatMap((h) =>
          h.field !== undefined && matchesResource(h, resource) ? [h.field] : [],
        );
        return distinctBy(fields, (f) => JSON.stringify(f));
      }),
  };
};

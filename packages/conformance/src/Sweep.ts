/**
 * Leaves a shared cluster as a test file found it, so that end-to-end files written for a fresh
 * cluster each (as the emulator and the real tier give them) can run one after another on one
 * long-lived cluster (kind, k3d, minikube: `KOPF_TEST_CLUSTER=kubeconfig:PATH`). Before the file,
 * {@link snapshot} notes the uid of every object; after it, {@link sweep} deletes every object
 * that is new — finalizers removed first (an operator that is gone cannot release them), custom
 * resource definitions and namespaces last — and waits until they are gone. System namespaces,
 * events and leases are never touched. Use it on a cluster meant for tests only.
 */
import { type APIResource, type ApiError, KubeApi } from "@kopf/client";
import { type RawBody, Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import * as Stream from "effect/Stream";

/** The uids of the objects that existed when the snapshot was taken. */
export interface Snapshot {
  readonly uids: ReadonlySet<string>;
}

/** What a sweep deleted, by `plural.group` (e.g. `kopfexamples.kopf.dev: 2`). */
export type Swept = Readonly<Record<string, number>>;

const SYSTEM_NAMESPACES = new Set(["kube-system", "kube-public", "kube-node-lease", "local-path-storage"]);
/**
 * Resources that record what happens rather than what is wanted, or that the cluster keeps in step
 * with others (an APIService per CRD group): the cluster itself writes and removes them.
 */
const UNTOUCHED = new Set([
  "apiservices.apiregistration.k8s.io",
  "events",
  "events.events.k8s.io",
  "leases.coordination.k8s.io",
  "endpoints",
  "endpointslices.discovery.k8s.io",
  "componentstatuses",
]);

const keyOf = (resource: Resource.Resource) =>
  resource.group === "" ? resource.plural : `${resource.plural}.${resource.group}`;

/** Every listable, deletable resource in its preferred version. */
const resources = Effect.gen(function* () {
  const api = yield* KubeApi;
  const served = yield* api.discover();
  return served
    .filter((gv) => gv.preferred)
    .flatMap((gv) =>
      gv.resources
        .filter((r: APIResource) => !r.name.includes("/"))
        .filter((r) => r.verbs.includes("list") && r.verbs.includes("delete"))
        .map((r) =>
          Resource.make({
            group: gv.group,
            version: gv.version,
            plural: r.name,
            kind: r.kind,
            namespaced: r.namespaced,
          }),
        ),
    )
    .filter((resource) => !UNTOUCHED.has(keyOf(resource)));
});

const objectsOf = (resource: Resource.Resource) =>
  Effect.flatMap(KubeApi, (api) =>
    Stream.runCollect(api.listAll(resource, { limit: 500 })).pipe(
      Effect.map((pages) => pages.flatMap((page) => page.items)),
      // A resource that cannot be listed after all (an aggregated API that is down) is skipped.
      Effect.catch(() => Effect.succeed([] as ReadonlyArray<RawBody>)),
    ),
  );

const inScope = (body: RawBody) => !SYSTEM_NAMESPACES.has(body.metadata?.namespace ?? "");

/**
 * Notes every object of the cluster (outside the system namespaces).
 *
 * @example
 * ```ts
 * const before = yield* Sweep.snapshot
 * // … the tests …
 * yield* Sweep.sweep(before)
 * ```
 */
export const snapshot: Effect.Effect<Snapshot, ApiError, KubeApi> = Effect.gen(function* () {
  const uids = new Set<string>();
  for (const resource of yield* resources) {
    for (const body of yield* objectsOf(resource)) {
      if (inScope(body) && body.metadata?.uid !== undefined) uids.add(body.metadata.uid);
    }
  }
  return { uids };
});

interface Found {
  readonly resource: Resource.Resource;
  readonly body: RawBody;
}

const rank = ({ resource }: Found) =>
  resource.plural === "namespaces" && resource.group === ""
    ? 2
    : resource.plural === "customresourcedefinitions"
      ? 1
      : 0;

const ignoreGone = <A>(effect: Effect.Effect<A, ApiError>) =>
  effect.pipe(
    Effect.asVoid,
    Effect.catchIf(
      (error) =>
        error._tag === "KubeApiError" && (error.reason === "NotFound" || error.reason === "Conflict"),
      () => Effect.void,
    ),
  );

/**
 * Deletes every object created since the snapshot and waits (up to a minute) until all are gone.
 *
 * @example
 * ```ts
 * const swept = yield* Sweep.sweep(before) // { "kopfexamples.kopf.dev": 1, "pods": 2, ... }
 * ```
 */
export const sweep = (before: Snapshot): Effect.Effect<Swept, ApiError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const found: Array<Found> = [];
    for (const resource of yield* resources) {
      for (const body of yield* objectsOf(resource)) {
        const uid = body.metadata?.uid;
        if (uid !== undefined && inScope(body) && !before.uids.has(uid)) found.push({ resource, body });
      }
    }
    found.sort((a, b) => rank(a) - rank(b));
    const locationOf = ({ body }: Found) => ({
      name: body.metadata?.name ?? "",
      namespace: body.metadata?.namespace ?? null,
    });
    for (const item of found) {
      if ((item.body.metadata?.finalizers ?? []).length > 0) {
        yield* ignoreGone(
          api.patch(item.resource, locationOf(item), {
            type: "merge",
            body: { metadata: { finalizers: null } },
          }),
        );
      }
    }
    for (const item of found) {
      yield* ignoreGone(
        api.delete(item.resource, locationOf(item), {
          gracePeriodSeconds: 0,
          propagationPolicy: "Background",
        }),
      );
    }
    // Wait until each is gone (or replaced by a newer object of the same name).
    for (const item of found) {
      yield* api.get(item.resource, locationOf(item)).pipe(
        Effect.flatMap((body) =>
          body.metadata?.uid === item.body.metadata?.uid
            ? // Finalizers added meanwhile (e.g. a namespace's contents): strip them again.
              ignoreGone(
                api.patch(item.resource, locationOf(item), {
                  type: "merge",
                  body: { metadata: { finalizers: null } },
                }),
              ).pipe(Effect.andThen(Effect.fail("still there" as const)))
            : Effect.void,
        ),
        Effect.catchIf(
          (error) => error !== "still there" && error._tag === "KubeApiError" && error.reason === "NotFound",
          () => Effect.void,
        ),
        Effect.retry({
          while: (error) => error === "still there",
          times: 300,
          schedule: Schedule.spaced("200 millis"),
        }),
        Effect.catchIf(
          (error) => error === "still there",
          () =>
            Effect.logWarning(
              `sweep: ${keyOf(item.resource)} ${item.body.metadata?.namespace ?? ""}/${item.body.metadata?.name} is still there after a minute`,
            ),
        ),
      );
    }
    const swept: Record<string, number> = {};
    for (const item of found) swept[keyOf(item.resource)] = (swept[keyOf(item.resource)] ?? 0) + 1;
    return swept;
  });

/**
 * The in-memory Kubernetes API server: the `KubeEmulator` service whose `handle` answers API
 * requests as a kube-apiserver does (never failing: every error is a `Status` response), with
 * fault hooks (drop watches, compact history), state export/import and `apply` for fixtures.
 */
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Queue from "effect/Queue";
import * as Random from "effect/Random";
import type * as Stream from "effect/Stream";
import { AdmissionHook, type AdmissionHookShape, type StoreReader } from "./Admission.ts";
import * as Body from "./Body.ts";
import * as CrdController from "./CrdController.ts";
import type { EmulatorError, EmulatorState } from "./Fixtures.ts";
import * as Fixtures from "./Fixtures.ts";
import * as GarbageCollector from "./GarbageCollector.ts";
import type { Core } from "./internal/Core.ts";
import { json, statusResponse } from "./internal/Core.ts";
import { asObject, type JsonObject, metaOf } from "./internal/Json.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as NamespaceController from "./NamespaceController.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import { BUILTINS, keyOf } from "./ResourceType.ts";
import * as Router from "./Router.ts";
import * as Status from "./Status.ts";
import { Store, type Table } from "./Store.ts";

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case header names; content-type decides the patch type / YAML bodies. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
  /** The authenticated user (admission userInfo). */
  readonly user: { readonly username: string; readonly uid?: string; readonly groups: ReadonlyArray<string> };
}

export type ApiResponse =
  | {
      readonly _tag: "Complete";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Uint8Array;
    }
  | {
      readonly _tag: "Streaming";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      /** Watch: one JSON object plus "\n" per event. */
      readonly body: Stream.Stream<Uint8Array>;
    };

export { EmulatorError, type EmulatorState } from "./Fixtures.ts";

export interface EmulatorOptions {
  /**
   * Events always kept per resource type for watch resumption and paged lists (default 1000): the
   * newest ones. Older events are kept too while younger than {@link historyWindow}, up to
   * {@link historyCap}, as kube-apiserver's watch cache keeps them.
   */
  readonly historySize?: number;
  /** How long events are kept beyond {@link historySize} (default 75 seconds, Clock-driven; 0: not). */
  readonly historyWindow?: Duration.Input;
  /** The most events kept per resource type, however young (default 102,400). */
  readonly historyCap?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 1 minute, Clock-driven). */
  readonly bookmarkInterval?: Duration.Input;
  /** Watch duration when the client gives no timeoutSeconds (default 30 minutes). */
  readonly watchTimeout?: Duration.Input;
  /** The admission hook; by default the `AdmissionHook` reference (which admits everything). */
  readonly admission?: AdmissionHookShape;
  /** The version `/version` reports (default v1.36.3, the version the emulator follows). */
  readonly gitVersion?: string;
  /**
   * Whether every namespace gets its `default` ServiceAccount and `kube-root-ca.crt` ConfigMap,
   * as kube-controller-manager gives them (default true), and how long after the namespace
   * appears (default 10 milliseconds, on `Clock`).
   */
  readonly namespaceControllers?: boolean;
  readonly namespaceControllerDelay?: Duration.Input;
  /**
   * Feature gates as kube-apiserver's `--feature-gates`: `ShardedListAndWatch` (v1.36, alpha,
   * off by default) serves `shardSelector` on lists and watches and echoes `shardInfo`; off,
   * the parameter is ignored, as by servers without the feature.
   */
  readonly featureGates?: { readonly ShardedListAndWatch?: boolean | undefined } | undefined;
}

export interface KubeEmulatorShape {
  /** Answers one API request; never fails: every error is a Kubernetes Status response. */
  readonly handle: (request: ApiRequest) => Effect.Effect<ApiResponse>;
  /** Ends every open watch stream (clients see a disconnect). */
  readonly dropWatches: Effect.Effect<void>;
  /** Forgets the event history: watches from an older resourceVersion get 410 Gone. */
  readonly compactHistory: Effect.Effect<void>;
  readonly exportState: Effect.Effect<EmulatorState>;
  /** Replaces nothing: adds the saved objects (objects of unserved kinds are skipped with a warning). */
  readonly importState: (state: EmulatorState) => Effect.Effect<void>;
  /** Create-or-update as a cluster admin (CRD files, fixtures). */
  readonly apply: (objects: ReadonlyArray<unknown>) => Effect.Effect<void, EmulatorError>;
  /** Read-only access to stored objects (what an admission hook needs). */
  readonly reader: StoreReader;
  /** Sets the cluster CA that every namespace's `kube-root-ca.crt` publishes (the HTTPS server's). */
  readonly setRootCa: (caPem: string) => Effect.Effect<void>;
}

const DEFAULT_NAMESPACES = ["default", "kube-node-lease", "kube-public", "kube-system"];

/** The service the apiserver maintains for itself in `default`. */
const KUBERNETES_SERVICE = {
  metadata: { name: "kubernetes", labels: { component: "apiserver", provider: "kubernetes" } },
  spec: {
    clusterIP: "10.96.0.1",
    ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }],
    sessionAffinity: "None",
    type: "ClusterIP",
  },
};

const makeReader = (store: Store): StoreReader => ({
  get: (group, resource, namespace, name) => store.table(group, resource)?.get(namespace, name),
  list: (group, resource, namespace) => store.table(group, resource)?.list(namespace) ?? [],
  namespaceLabels: (namespace) => {
    const ns = store.table("", "namespaces")?.get("", namespace);
    return ns === undefined ? undefined : (asObject(metaOf(ns).labels) as Record<string, string>);
  },
});

/**
 * The emulator service.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const kube = yield* KubeEmulator;
 *   const res = yield* kube.handle({ method: "GET", path: "/api/v1/namespaces", query: new URLSearchParams(), headers: {}, body: undefined, user: { username: "me", groups: [] } });
 * }).pipe(Effect.provide(KubeEmulator.layer()));
 */
export class KubeEmulator extends Context.Service<KubeEmulator, KubeEmulatorShape>()(
  "@kopf/emulator/KubeEmulator",
) {
  static readonly layer = (options: EmulatorOptions = {}): Layer.Layer<KubeEmulator> =>
    Layer.effect(KubeEmulator, make(options));
}

export const make = Effect.fnUntraced(function* (options: EmulatorOptions) {
  const clock = yield* Clock.Clock;
  const random = yield* Random.Random;
  const admission = options.admission ?? (yield* AdmissionHook);
  const store = new Store({
    size: options.historySize ?? 1000,
    windowMillis: Duration.toMillis(Duration.fromInputUnsafe(options.historyWindow ?? "75 seconds")),
    cap: options.historyCap ?? 102_400,
    now: () => clock.currentTimeMillisUnsafe(),
  });
  const gcSignal = yield* Queue.sliding<void>(1);
  const namespaceControllers =
    options.namespaceControllers === false ? undefined : yield* NamespaceController.make(store);
  const reader = makeReader(store);
  const core: Core = {
    store,
    clock,
    now: () => clock.currentTimeMillisUnsafe(),
    random: () => random.nextDoubleUnsafe(),
    admission,
    reader,
    shardedListAndWatch: options.featureGates?.ShardedListAndWatch === true,
    bookmarkIntervalMillis: Duration.toMillis(
      Duration.fromInputUnsafe(options.bookmarkInterval ?? "1 minute"),
    ),
    defaultWatchTimeoutSeconds: Duration.toSeconds(
      Duration.fromInputUnsafe(options.watchTimeout ?? "30 minutes"),
    ),
    afterChange: (table: Table, object: JsonObject, deleted: boolean) => {
      if (table.type.group === "apiextensions.k8s.io" && table.type.plural === "customresourcedefinitions")
        CrdController.sync(core, object, deleted);
      if (GarbageCollector.isInteresting(object, deleted)) Queue.offerUnsafe(gcSignal, undefined);
      namespaceControllers?.observe(table, object, deleted);
    },
  };
  for (const t of BUILTINS) {
    if (t.storedAs === undefined) store.addTable(t);
    else store.views.set(keyOf(t), t);
  }
  // The apiserver creates these itself, as manager `kube-apiserver` (so later writes track fields).
  const byApiserver = (table: Table, obj: JsonObject): JsonObject =>
    ManagedFields.track(undefined, obj, "kube-apiserver", "Update", undefined, core.now(), {
      type: table.type,
      version: table.type.storageVersion,
    });
  const namespaces = store.table("", "namespaces") as Table;
  for (const name of DEFAULT_NAMESPACES)
    store.put(
      namespaces,
      ObjectMeta.prepareCreate(
        namespaces.type,
        byApiserver(
          namespaces,
          ObjectMeta.decodeForCreate(namespaces.type, undefined, { metadata: { name } }),
        ),
        core.now(),
        core.random,
      ),
      undefined,
    );
  const services = store.table("", "services") as Table;
  store.put(
    services,
    ObjectMeta.prepareCreate(
      services.type,
      byApiserver(services, ObjectMeta.decodeForCreate(services.type, "default", KUBERNETES_SERVICE)),
      core.now(),
      core.random,
    ),
    undefined,
  );
  const routerOptions = { gitVersion: options.gitVersion ?? "v1.36.3" };
  const handle = (request: ApiRequest): Effect.Effect<ApiResponse> =>
    Effect.suspend(() => {
      const tooLarge = Body.checkSize(request.body);
      if (tooLarge._tag === "Failure") return Effect.succeed(statusResponse(tooLarge.failure.status));
      return Router.route(core, routerOptions, request);
    }).pipe(
      Effect.catchCause((cause) => {
        const failure = Cause.findErrorOption(cause);
        if (failure._tag === "Some" && failure.value instanceof Status.ApiError)
          return Effect.succeed(statusResponse(failure.value.status, failure.value.warnings));
        if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt;
        return Effect.succeed(json(500, Status.internal(String(Cause.squash(cause))).status));
      }),
    );
  /** The background controllers' passes; their deletions go through `handle` (admission included). */
  const collectGarbage = Effect.gen(function* () {
    for (let pass = 0; pass < 100; pass++) {
      const rv = store.rv;
      const { removals } = GarbageCollector.sweep(core);
      yield* Effect.forEach(removals, (removal) => handle(GarbageCollector.deleteRequest(removal)), {
        discard: true,
      });
      if (store.rv === rv) return;
    }
  });
  yield* Effect.forkScoped(Effect.forever(Queue.take(gcSignal).pipe(Effect.andThen(collectGarbage))));
  if (namespaceControllers !== undefined)
    yield* namespaceControllers.start(
      handle,
      DEFAULT_NAMESPACES,
      Duration.fromInputUnsafe(options.namespaceControllerDelay ?? "10 millis"),
    );
  const fixtures = Fixtures.make(store, handle);
  return KubeEmulator.of({
    handle,
    reader,
    setRootCa: (caPem) => namespaceControllers?.setRootCa(handle, caPem) ?? Effect.void,
    dropWatches: Effect.sync(() => {
      for (const table of store.tables.values()) for (const w of [...table.watchers]) w.end();
    }),
    compactHistory: Effect.sync(() => store.compact()),
    exportState: Effect.sync(() => ({ resourceVersion: String(store.rv), objects: store.allObjects() })),
    importState: fixtures.importState,
    apply: fixtures.apply,
  });
});

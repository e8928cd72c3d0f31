/**
 * The controllers that fill every namespace as a cluster's kube-controller-manager does: the
 * `default` ServiceAccount (serviceaccounts-controller) and the `kube-root-ca.crt` ConfigMap with
 * the cluster's CA bundle (root-ca-cert-publisher). They act shortly after a namespace appears
 * (on `Clock`, so `TestClock` drives them), through the API like any client, so admission
 * webhooks, watches and managedFields see them as on a real cluster; the ConfigMap is rewritten
 * when the CA changes (the HTTPS server sets it once it has generated one).
 */
import type * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import type * as Scope from "effect/Scope";
import type { ApiRequest, ApiResponse } from "./Emulator.ts";
import { type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import type { Store, Table } from "./Store.ts";

type Handle = (request: ApiRequest) => Effect.Effect<ApiResponse>;

/** The ConfigMap every namespace gets, holding `ca.crt`. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

/** The annotation the root-ca-cert-publisher writes on it (kube-controller-manager's own words). */
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

export const DEFAULT_SERVICE_ACCOUNT = "default";

const controller = (name: string): ApiRequest["user"] => ({
  username: `system:serviceaccount:kube-system:${name}`,
  groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
});

const encoder = new TextEncoder();

const write = (method: string, path: string, body: unknown, user: ApiRequest["user"]): ApiRequest => ({
  method,
  path,
  query: new URLSearchParams(),
  headers: { "content-type": "application/json", "user-agent": "kube-controller-manager/v1.36.3" },
  body: encoder.encode(JSON.stringify(body)),
  user,
});

const base = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}`;

const rootCa = (namespace: string, caPem: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: ROOT_CA_CONFIGMAP,
    namespace,
    annotations: { "kubernetes.io/description": ROOT_CA_DESCRIPTION },
  },
  data: { "ca.crt": caPem },
});

/**
 * The requests the controllers send for a namespace: the ServiceAccount, then the ConfigMap.
 * Answers such as 409 AlreadyExists or 403 (the namespace is terminating) are what a controller
 * shrugs off; `populate` ignores them.
 *
 * @example
 * requestsFor("team-a", caPem).map((r) => r.path)
 * // ["/api/v1/namespaces/team-a/serviceaccounts", "/api/v1/namespaces/team-a/configmaps"]
 */
export const requestsFor = (namespace: string, caPem: string): ReadonlyArray<ApiRequest> => [
  write(
    "POST",
    `${base(namespace)}/serviceaccounts`,
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } },
    controller("service-account-controller"),
  ),
  write(
    "POST",
    `${base(namespace)}/configmaps`,
    rootCa(namespace, caPem),
    controller("root-ca-cert-publisher"),
  ),
];

/** Creates the namespace's default content through `handle` (existing objects are left alone). */
export const populate = (handle: Handle, namespace: string, caPem: string): Effect.Effect<void> =>
  Effect.forEach(requestsFor(namespace, caPem), handle, { discard: true });

/** Rewrites a namespace's `kube-root-ca.crt` with a new CA bundle (a merge patch of `data`). */
export const publishCa = (handle: Handle, namespace: string, caPem: string): Effect.Effect<void> =>
  Effect.asVoid(
    handle({
      ...write(
        "PATCH",
        `${base(namespace)}/configmaps/${ROOT_CA_CONFIGMAP}`,
        { data: { "ca.crt": caPem } },
        controller("root-ca-cert-publisher"),
      ),
      headers: {
        "content-type": "application/merge-patch+json",
        "user-agent": "kube-controller-manager/v1.36.3",
      },
    }),
  );

/** The running controllers of one emulator. */
export interface NamespaceControllers {
  /** Sees every stored change (the core's `afterChange`): new namespaces, their content going away. */
  readonly observe: (table: Table, object: JsonObject, deleted: boolean) => void;
  /** Fills `initial` namespaces at once, then new ones `delay` after they appear, until the scope closes. */
  readonly start: (
    handle: Handle,
    initial: ReadonlyArray<string>,
    delay: Duration.Duration,
  ) => Effect.Effect<void, never, Scope.Scope>;
  /** Publishes a new CA bundle in every namespace's `kube-root-ca.crt`. */
  readonly setRootCa: (handle: Handle, caPem: string) => Effect.Effect<void>;
}

/** The namespace controllers over `store`. */
export const make = (store: Store): Effect.Effect<NamespaceControllers> =>
  Effect.map(Queue.unbounded<string>(), (signal) => {
    /** Namespaces looked after (their content is recreated when deleted). */
    const watched = new Set<string>();
    let rootCaPem = "";
    const live = (name: string): boolean => {
      const ns = store.table("", "namespaces")?.get("", name);
      return ns !== undefined && !ObjectMeta.isDeleting(ns);
    };
    const fill = (handle: Handle, names: Iterable<string>) =>
      Effect.forEach(
        new Set(names),
        (name) => (live(name) ? populate(handle, name, rootCaPem) : Effect.void),
        { discard: true },
      );
    return {
      observe: (table, object, deleted) => {
        if (table.type.group !== "") return;
        const name = str(metaOf(object).name) ?? "";
        if (table.type.plural === "namespaces") {
          if (deleted || ObjectMeta.isDeleting(object)) watched.delete(name);
          else if (!watched.has(name)) {
            watched.add(name);
            Queue.offerUnsafe(signal, name);
          }
          return;
        }
        const namespace = str(metaOf(object).namespace) ?? "";
        const ours =
          (table.type.plural === "serviceaccounts" && name === DEFAULT_SERVICE_ACCOUNT) ||
          (table.type.plural === "configmaps" && name === ROOT_CA_CONFIGMAP);
        if (ours && deleted && watched.has(namespace)) Queue.offerUnsafe(signal, namespace);
      },
      start: (handle, initial, delay) =>
        Effect.gen(function* () {
          for (const name of initial) watched.add(name);
          yield* fill(handle, initial);
          yield* Effect.forkScoped(
            Effect.forever(
              Queue.takeAll(signal).pipe(
                Effect.tap(() => Effect.sleep(delay)),
                Effect.flatMap((names) => fill(handle, names)),
              ),
            ),
          );
        }),
      setRootCa: (handle, caPem) =>
        Effect.suspend(() => {
          rootCaPem = caPem;
          const holders = (store.table("", "configmaps")?.list(undefined) ?? []).filter(
            (cm) => str(metaOf(cm).name) === ROOT_CA_CONFIGMAP,
          );
          return Effect.forEach(holders, (cm) => publishCa(handle, str(metaOf(cm).namespace) ?? "", caPem), {
            discard: true,
          });
        }),
    };
  });

/**
 * Deletion with finalizers and propagation: deletion marks objects with finalizers (bumping the
 * generation of kinds that have one), new finalizers are refused while deleting, removing the last
 * finalizer deletes (the answer and the DELETED event watched), and owner references cascade
 * (background), orphan dependents (orphan) or hold the owner (foreground).
 */
import type { Select, Sequence } from "../Interaction.ts";
import {
  cms,
  collect,
  configMap,
  del,
  get,
  gone,
  JSON_PATCH,
  MERGE,
  names,
  namespace,
  patch,
  poll,
  post,
  rvOf,
  uidOf,
  watch,
} from "./internal/steps.ts";

const DELETE = (propagationPolicy: string) => ({
  apiVersion: "v1",
  kind: "DeleteOptions",
  propagationPolicy,
});

const ownedBy = (name: string, uid: string, blockOwnerDeletion = false) => ({
  ownerReferences: [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      name,
      uid,
      ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
    },
  ],
});

const withoutOwners = (_status: number, body: unknown) =>
  ((body as { metadata?: { ownerReferences?: unknown[] } }).metadata?.ownerReferences ?? []).length === 0;

/** A Deployment held by a finalizer (no controller runs it: only its metadata matters). */
const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, finalizers: ["example.com/keep"] },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "none" }] } },
  },
});

/** What a deletion changes of an object's metadata (a Deployment's defaults are not this sequence's business). */
const deletionMeta: Select = (body) => {
  const meta = (body as { metadata?: Record<string, unknown> }).metadata;
  if (meta === undefined) return body;
  return {
    generation: meta.generation,
    resourceVersion: meta.resourceVersion,
    deletionTimestamp: meta.deletionTimestamp,
    deletionGracePeriodSeconds: meta.deletionGracePeriodSeconds,
    finalizers: meta.finalizers,
  };
};

/** An unscheduled pod (no kubelet runs it): deleted at once, after a marking write. */
const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "none" }] },
});

/** Watch events with their types and what a deletion changes of their objects. */
const podEvents: Select = (body) =>
  Array.isArray(body)
    ? body.map((e: { type?: string; object?: unknown }) => ({ type: e.type, object: deletionMeta(e.object) }))
    : body;

/** The deletion sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-del-${run}`;
  const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const named = (name: string, step: string) => (e: (s: string) => unknown) =>
    `${cms(ns)}?fieldSelector=metadata.name%3D${name}&resourceVersion=${rvOf(e, step)}`;
  const child = (step: string, name: string, owner: string, block = false) =>
    post(step, cms(ns), undefined, {
      bodyFrom: (e) => configMap(name, {}, ownedBy(owner, uidOf(e, `create-${owner}`), block)),
    });
  return {
    name: "deletion",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create-finalized", cms(ns), configMap("fin", {}, { finalizers: ["example.com/keep"] })),
      watch("watch-finalized", "fin", named("fin", "create-finalized")),
      del("delete-finalized", cms(ns, "fin")),
      get("get-deleting", cms(ns, "fin")),
      patch("add-finalizer-while-deleting", cms(ns, "fin"), MERGE, {
        metadata: { finalizers: ["example.com/keep", "example.com/new"] },
      }),
      patch("change-data-while-deleting", cms(ns, "fin"), MERGE, { data: { still: "writable" } }),
      del("delete-again", cms(ns, "fin")),
      patch("remove-finalizer", cms(ns, "fin"), JSON_PATCH, [{ op: "remove", path: "/metadata/finalizers" }]),
      get("get-after-finalizer", cms(ns, "fin")),
      collect("events-finalized", "fin", 3),
      post("create-finalized-2", cms(ns), configMap("fin2", {}, { finalizers: ["example.com/keep"] })),
      watch("watch-finalized-2", "fin2", named("fin2", "create-finalized-2")),
      del("delete-finalized-2", cms(ns, "fin2")),
      patch("merge-remove-finalizer", cms(ns, "fin2"), MERGE, { metadata: { finalizers: null } }),
      collect("events-finalized-2", "fin2", 2),
      post("create-deployment", deployments, deployment("held"), { select: deletionMeta }),
      del("delete-deployment", `${deployments}/held`, undefined, { select: deletionMeta }),
      del("delete-deployment-again", `${deployments}/held`, undefined, { select: deletionMeta }),
      patch(
        "release-deployment",
        `${deployments}/held`,
        MERGE,
        { metadata: { finalizers: null } },
        {
          select: deletionMeta,
        },
      ),
      get("deployment-gone", `${deployments}/held`),
      poll("service-account", `/api/v1/namespaces/${ns}/serviceaccounts/default`, (status) => status === 200),
      post("create-pod", pods, pod("unscheduled"), { select: deletionMeta }),
      watch("watch-pod", "pod", (e) => `${pods}?resourceVersion=${rvOf(e, "create-pod")}`),
      del("delete-pod", `${pods}/unscheduled`, undefined, { select: deletionMeta }),
      collect("events-pod", "pod", 2, 5_000, podEvents),
      get("pod-gone", `${pods}/unscheduled`),
      post("create-owner", cms(ns), configMap("owner")),
      child("create-child-1", "child-1", "owner"),
      child("create-child-2", "child-2", "owner"),
      post(
        "create-dangling",
        cms(ns),
        configMap("dangling", {}, ownedBy("ghost", "11111111-2222-3333-4444-555555555555")),
      ),
      del("delete-owner-background", cms(ns, "owner"), DELETE("Background")),
      poll("child-1-collected", cms(ns, "child-1"), gone),
      poll("child-2-collected", cms(ns, "child-2"), gone),
      poll("dangling-collected", cms(ns, "dangling"), gone),
      post("create-orphaner", cms(ns), configMap("orphaner")),
      child("create-orphan", "orphan", "orphaner"),
      del("delete-orphaner", cms(ns, "orphaner"), DELETE("Orphan")),
      poll("orphaner-gone", cms(ns, "orphaner"), gone),
      poll("orphan-released", cms(ns, "orphan"), withoutOwners),
      post("create-holder", cms(ns), configMap("holder")),
      child("create-blocker", "blocker", "holder", true),
      del("delete-holder-foreground", cms(ns, "holder"), DELETE("Foreground")),
      poll("holder-gone", cms(ns, "holder"), gone),
      poll("blocker-collected", cms(ns, "blocker"), gone),
      del("delete-bad-policy", cms(ns, "orphan"), DELETE("Sometimes")),
      del("delete-collection", `${cms(ns)}?labelSelector=none-such%3Dx`),
      get("list-remaining", cms(ns), { select: names }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};

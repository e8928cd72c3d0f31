/**
 * The cluster's background controllers that finish deletions: the garbage collector (dependents of
 * deleted owners, `orphan` and `foregroundDeletion` finalizers, dangling owner references), the
 * namespace controller (content of Terminating namespaces, which stay Terminating while any is
 * left), and the CRD cleanup controller. As on a real cluster, the garbage collector's and the
 * namespace controller's deletions are API requests (`removals`, sent through `handle` by the
 * emulator, so admission webhooks see them); finalizer bookkeeping is written directly.
 */
import type { ApiRequest } from "./Emulator.ts";
import type { Core } from "./internal/Core.ts";
import { asObject, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import { nameOf, namespaceOf, type Table, uidOf } from "./Store.ts";

export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

interface Located {
  readonly table: Table;
  readonly obj: JsonObject;
}

const ownerRefs = (obj: JsonObject): Array<JsonObject> => {
  const refs = metaOf(obj).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isObject) : [];
};

/** Stores a changed object, or removes it when it is deleting and has no finalizers left. */
const commit = (core: Core, table: Table, old: JsonObject, next: JsonObject): void => {
  if (ObjectMeta.canBeRemoved(next)) {
    const gone = core.store.remove(table, old);
    core.afterChange(table, gone, true);
  } else {
    const stored = core.store.put(table, next, old);
    core.afterChange(table, stored, false);
  }
};

/** A deletion a controller asks the API for. */
export interface Removal {
  readonly table: Table;
  readonly obj: JsonObject;
  readonly foreground: boolean;
  readonly by: "generic-garbage-collector" | "namespace-controller";
}

/** What one pass of the controllers did and asks for. */
export interface Sweep {
  /** Whether the pass wrote anything itself. */
  readonly changed: boolean;
  /** Deletions to send as API requests (one per object). */
  readonly removals: ReadonlyArray<Removal>;
}

const encoder = new TextEncoder();

/**
 * The DELETE request of a removal, as the controller's service account sends it: the object's
 * uid as a precondition (never another object of the same name), Background or Foreground.
 *
 * @example
 * deleteRequest(removal).path // "/api/v1/namespaces/ns1/configmaps/x"
 */
export const deleteRequest = (removal: Removal): ApiRequest => {
  const { type } = removal.table;
  const version = type.storageVersion;
  const prefix = type.group === "" ? `/api/${version}` : `/apis/${type.group}/${version}`;
  const namespace = namespaceOf(removal.obj);
  const scope = type.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return {
    method: "DELETE",
    path: `${prefix}${scope}/${type.plural}/${encodeURIComponent(nameOf(removal.obj))}`,
    query: new URLSearchParams(),
    headers: { "content-type": "application/json", "user-agent": "kube-controller-manager/v1.36.3" },
    body: encoder.encode(
      JSON.stringify({
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: removal.foreground ? "Foreground" : "Background",
        preconditions: { uid: uidOf(removal.obj) },
      }),
    ),
    user: {
      username: `system:serviceaccount:kube-system:${removal.by}`,
      groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
    },
  };
};

/** Deletes as a client would with the given policy: marks when finalizers remain, else removes. */
const deleteObject = (core: Core, table: Table, obj: JsonObject, foreground: boolean): void => {
  if (ObjectMeta.isDeleting(obj)) return;
  const finalizers = [...ObjectMeta.finalizersOf(obj)];
  if (foreground && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion");
  if (finalizers.length === 0) {
    const gone = core.store.remove(table, obj);
    core.afterChange(table, gone, true);
    return;
  }
  const meta = metaOf(obj);
  commit(core, table, obj, {
    ...obj,
    metadata: {
      ...meta,
      deletionTimestamp: formatTime(core.now()),
      deletionGracePeriodSeconds: 0,
      finalizers,
    },
  });
};

const withoutFinalizer = (obj: JsonObject, finalizer: string): JsonObject => {
  const rest = ObjectMeta.finalizersOf(obj).filter((f) => f !== finalizer);
  const meta = { ...metaOf(obj) };
  if (rest.length === 0) delete meta.finalizers;
  else meta.finalizers = rest;
  return { ...obj, metadata: meta };
};

const allObjects = (core: Core): Array<Located> => {
  const out: Array<Located> = [];
  for (const table of core.store.tables.values())
    for (const names of table.byNamespace.values())
      for (const obj of names.values()) out.push({ table, obj });
  return out;
};

const current = (located: Located): JsonObject | undefined =>
  located.table.get(namespaceOf(located.obj), nameOf(located.obj));

/**
 * One pass of all controllers: what they wrote, and the deletions they ask for (another pass is
 * due when either happened).
 */
export const sweep = (core: Core): Sweep => {
  const rvBefore = core.store.rv;
  const removals: Array<Removal> = [];
  const remove = (table: Table, obj: JsonObject, foreground: boolean, by: Removal["by"]) => {
    if (!ObjectMeta.isDeleting(obj)) removals.push({ table, obj, foreground, by });
  };
  const everything = allObjects(core);
  const dependents = new Map<string, Array<Located>>();
  for (const located of everything)
    for (const ref of ownerRefs(located.obj)) {
      const uid = str(ref.uid) ?? "";
      dependents.set(uid, [...(dependents.get(uid) ?? []), located]);
    }
  for (const located of everything) {
    const refs = ownerRefs(located.obj);
    if (refs.length === 0) continue;
    const obj = current(located);
    if (obj === undefined || ObjectMeta.isDeleting(obj)) continue;
    const owners = refs.map((ref) => ({ ref, owner: core.store.lookupUid(str(ref.uid) ?? "") }));
    const absent = owners.filter(
      (o) => o.owner === undefined || str(metaOf(o.owner).name) !== str(o.ref.name),
    );
    const orphaning = owners.filter(
      (o) =>
        o.owner !== undefined &&
        ObjectMeta.isDeleting(o.owner) &&
        ObjectMeta.finalizersOf(o.owner).includes("orphan"),
    );
    const foreground = owners.filter(
      (o) =>
        o.owner !== undefined &&
        ObjectMeta.isDeleting(o.owner) &&
        ObjectMeta.finalizersOf(o.owner).includes("foregroundDeletion"),
    );
    if (absent.length === owners.length) {
      remove(located.table, obj, false, "generic-garbage-collector");
      continue;
    }
    if (foreground.length > 0 && absent.length + foreground.length === owners.length) {
      remove(
        located.table,
        obj,
        foreground.some((o) => o.ref.blockOwnerDeletion === true),
        "generic-garbage-collector",
      );
      continue;
    }
    const drop = new Set([...absent, ...orphaning].map((o) => o.ref));
    if (drop.size > 0) {
      const kept = refs.filter((r) => !drop.has(r));
      const meta = { ...metaOf(obj) };
      if (kept.length === 0) delete meta.ownerReferences;
      else meta.ownerReferences = kept;
      // The removed references leave their managers' field sets, as the collector's patch does.
      const { type } = located.table;
      const next = ManagedFields.track(
        obj,
        { ...obj, metadata: meta },
        "generic-garbage-collector",
        "Update",
        undefined,
        core.now(),
        { type, version: type.storageVersion },
      );
      commit(core, located.table, obj, next);
    }
  }
  for (const located of everything) {
    const obj = current(located);
    if (obj === undefined || !ObjectMeta.isDeleting(obj)) continue;
    const finalizers = ObjectMeta.finalizersOf(obj);
    const uid = uidOf(obj);
    const live = (dependents.get(uid) ?? [])
      .map(current)
      .filter((d): d is JsonObject => d !== undefined && ownerRefs(d).some((r) => r.uid === uid));
    if (finalizers.includes("orphan") && live.length === 0)
      commit(core, located.table, obj, withoutFinalizer(obj, "orphan"));
    else if (
      finalizers.includes("foregroundDeletion") &&
      !live.some((d) => ownerRefs(d).some((r) => r.uid === uid && r.blockOwnerDeletion === true))
    )
      commit(core, located.table, obj, withoutFinalizer(obj, "foregroundDeletion"));
    else if (located.table.type.group === "" && located.table.type.plural === "namespaces")
      finalizeNamespace(core, located.table, obj, (t, o) => remove(t, o, false, "namespace-controller"));
    else if (
      located.table.type.plural === "customresourcedefinitions" &&
      finalizers.includes(CRD_CLEANUP_FINALIZER)
    )
      cleanupCrd(core, located.table, obj);
  }
  return { changed: core.store.rv !== rvBefore, removals };
};

/** Deletes a Terminating namespace's content; finalizes the namespace once none is left. */
const finalizeNamespace = (
  core: Core,
  table: Table,
  ns: JsonObject,
  remove: (table: Table, obj: JsonObject) => void,
): void => {
  const name = nameOf(ns);
  let remaining = 0;
  for (const t of core.store.tables.values()) {
    if (!t.type.namespaced || t.type.storedAs !== undefined) continue;
    const names = t.byNamespace.get(name);
    if (names === undefined) continue;
    for (const obj of names.values()) {
      remove(t, obj);
      remaining++;
    }
  }
  if (remaining > 0) return;
  const spec = asObject(ns.spec);
  if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) {
    const fresh = table.get("", name);
    if (fresh === undefined) return;
    const next = { ...fresh, spec: { ...spec, finalizers: [] } };
    commit(core, table, fresh, next);
    return;
  }
  if (ObjectMeta.canBeRemoved(ns)) commit(core, table, ns, ns);
};

const cleanupCrd = (core: Core, table: Table, crd: JsonObject): void => {
  const spec = asObject(crd.spec);
  const key = `${str(spec.group) ?? ""}/${str(asObject(spec.names).plural) ?? ""}`;
  const crTable = core.store.tables.get(key);
  if (crTable?.type.custom) {
    for (const names of [...crTable.byNamespace.values()])
      for (const obj of [...names.values()]) deleteObject(core, crTable, obj, false);
    if (crTable.size > 0) return;
  }
  commit(core, table, crd, withoutFinalizer(crd, CRD_CLEANUP_FINALIZER));
};

/** Whether a stored change may give the controllers work. */
export const isInteresting = (obj: JsonObject, deleted: boolean): boolean =>
  deleted || ObjectMeta.isDeleting(obj) || ownerRefs(obj).length > 0;

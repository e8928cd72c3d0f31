/**
 * The controllers behind CustomResourceDefinitions: serving a CRD's resource as soon as it is
 * stored (and no more once it is gone), and writing the status a real cluster converges to
 * (accepted names, NamesAccepted and Established conditions, the cleanup finalizer).
 */
import * as Crd from "./Crd.ts";
import type { Core } from "./internal/Core.ts";
import { asObject, isObject, type JsonObject, str } from "./internal/Json.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as ObjectMeta from "./ObjectMeta.ts";

/** Keeps CRD-served tables in step with stored CRDs. */
export const sync = (core: Core, crd: JsonObject, deleted: boolean): void => {
  const spec = asObject(crd.spec);
  const key = `${str(spec.group) ?? ""}/${str(asObject(spec.names).plural) ?? ""}`;
  const existing = core.store.tables.get(key);
  if (deleted) {
    if (existing?.type.custom === true) core.store.removeTable(key);
    return;
  }
  const type = Crd.resourceTypeOf(crd);
  if (type === undefined) return;
  if (existing === undefined) core.store.addTable(type);
  else if (existing.type.custom) existing.type = type;
  const status = asObject(crd.status);
  const established =
    Array.isArray(status.conditions) &&
    status.conditions.some((c) => isObject(c) && c.type === "Established");
  const fresh = core.store.table("apiextensions.k8s.io", "customresourcedefinitions");
  if (fresh === undefined || ObjectMeta.isDeleting(crd)) return;
  const wanted = Crd.establishedStatus(crd, core.now());
  if (established && JSON.stringify(status.acceptedNames) === JSON.stringify(wanted.acceptedNames)) return;
  // The conditions and names are written through /status as the "kube-apiserver" manager (the
  // cleanup finalizer comes only with the first delete request, as the apiextensions registry adds it).
  const scope = { type: fresh.type, version: "v1" };
  const next = ManagedFields.track(
    crd,
    { ...crd, status: wanted },
    "kube-apiserver",
    "Update",
    "status",
    core.now(),
    scope,
  );
  const stored = core.store.put(fresh, next, crd);
  core.afterChange(fresh, stored, false);
};

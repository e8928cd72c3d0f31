/**
 * DELETE of objects and collections: the preconditions and propagation of its options (read by
 * `DeleteOptions.ts`), finalizers (`orphan`, `foregroundDeletion`, and the user's: an object with
 * finalizers is marked with deletionTimestamp, not removed), namespaces entering Terminating.
 */
import * as Effect from "effect/Effect";
import type * as Result from "effect/Result";
import * as Admit from "./Admit.ts";
import { type DeleteOptions, parseOptions } from "./DeleteOptions.ts";
import type { ApiRequest } from "./Emulator.ts";
import { CRD_CLEANUP_FINALIZER } from "./GarbageCollector.ts";
import { type Core, json, type Resolved, type Response } from "./internal/Core.ts";
import { asObject, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as Status from "./Status.ts";
import { rvOf, uidOf } from "./Store.ts";

const PROTECTED_NAMESPACES = new Set(["default", "kube-system", "kube-public"]);

const checkPreconditions = (
  resolved: Resolved,
  options: DeleteOptions,
  obj: JsonObject,
): Status.ApiError | undefined => {
  const name = resolved.name ?? str(metaOf(obj).name) ?? "";
  const byKind = { group: resolved.type.group, resource: resolved.type.kind };
  if (options.uid !== undefined && options.uid !== uidOf(obj))
    return Status.conflict(
      byKind,
      name,
      `the UID in the precondition (${options.uid}) does not match the UID in record (${uidOf(obj)}). The object might have been deleted and then recreated`,
    );
  if (options.resourceVersion !== undefined && options.resourceVersion !== rvOf(obj))
    return Status.conflict(
      byKind,
      name,
      `the ResourceVersion in the precondition (${options.resourceVersion}) does not match the ResourceVersion in record (${rvOf(obj)}). The object might have been modified`,
    );
  return undefined;
};

/** The finalizers a delete adds for its propagation policy (default: Background). */
const policyFinalizers = (options: DeleteOptions, current: ReadonlyArray<string>): Array<string> => {
  const orphan =
    options.propagation === "Orphan" ||
    (options.propagation === undefined && options.orphanDependents === true);
  const foreground = options.propagation === "Foreground";
  const out = current.filter(
    (f) =>
      !(
        (orphan || foreground || options.propagation === "Background") &&
        (f === "orphan" || f === "foregroundDeletion")
      ),
  );
  if (orphan) out.push("orphan");
  if (foreground) out.push("foregroundDeletion");
  if (options.propagation === undefined && options.orphanDependents === undefined) return [...current];
  return out;
};

/** The condition the CRD registry adds when a CRD is deleted. */
const crdTerminating = (status: JsonObject, now: number): JsonObject => ({
  ...status,
  conditions: [
    ...(Array.isArray(status.conditions) ? status.conditions : []).filter(
      (c) => !isObject(c) || c.type !== "Terminating",
    ),
    {
      type: "Terminating",
      status: "True",
      lastTransitionTime: formatTime(now),
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    },
  ],
});

/**
 * The generation of an object a DELETE first marks with deletionTimestamp: one more, for kinds
 * that have one (kube-apiserver's BeforeDelete, and markAsDeleting for kinds without graceful
 * deletion, bump a positive generation once; a repeated DELETE leaves it). Not for CRDs.
 *
 * @example
 * markedGeneration(widgetAtGeneration1) // { generation: 2 }
 */
export const markedGeneration = (obj: JsonObject): JsonObject => {
  const generation = metaOf(obj).generation;
  return !ObjectMeta.isDeleting(obj) && typeof generation === "number" && generation > 0
    ? { generation: generation + 1 }
    : {};
};

/** Deletes one object; answers what the apiserver answers (the object, or a Success Status). */
export const deleteOne = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  options: DeleteOptions,
  name: string,
): Effect.fn.Return<
  { readonly status: number; readonly body: unknown; readonly warnings: ReadonlyArray<string> },
  Status.ApiError
> {
  const ns = resolved.namespace ?? "";
  const current = resolved.table.get(ns, name);
  if (current === undefined) return yield* Effect.fail(Status.notFound(resolved.gr, name));
  const isNamespace = resolved.type.group === "" && resolved.type.plural === "namespaces";
  if (isNamespace && PROTECTED_NAMESPACES.has(name))
    return yield* Effect.fail(Status.forbidden(resolved.gr, name, "this namespace may not be deleted"));
  const pre = checkPreconditions({ ...resolved, name }, options, current);
  if (pre !== undefined) return yield* Effect.fail(pre);
  const dryRun = options.dryRun;
  const { warnings } = yield* Admit.admit({
    core,
    resolved: { ...resolved, name },
    operation: "DELETE",
    object: undefined,
    oldObject: current,
    options: options.raw,
    user: request.user,
    dryRun,
  });
  const latest = resolved.table.get(ns, name);
  if (latest === undefined)
    return yield* Effect.fail(Status.withWarnings(Status.notFound(resolved.gr, name), warnings));
  const served = (o: JsonObject) => ObjectMeta.serve(resolved.type, resolved.version, o);
  const accepted = options.orphanDependents === false ? 202 : 200;
  const isCrd =
    resolved.type.group === "apiextensions.k8s.io" && resolved.type.plural === "customresourcedefinitions";
  const given = policyFinalizers(options, ObjectMeta.finalizersOf(latest));
  // The apiextensions registry adds the cleanup finalizer on the first delete request.
  const finalizers =
    isCrd && !ObjectMeta.isDeleting(latest) && !given.includes(CRD_CLEANUP_FINALIZER)
      ? [...given, CRD_CLEANUP_FINALIZER]
      : given;
  const meta = metaOf(latest);
  if (isNamespace || finalizers.length > 0) {
    if (ObjectMeta.isDeleting(latest) && finalizers.join() === ObjectMeta.finalizersOf(latest).join())
      return { status: accepted, body: served(latest), warnings };
    const marked: JsonObject = {
      ...latest,
      metadata: {
        ...meta,
        // The CRD registry marks a CRD by an update of its own, which leaves the generation.
        ...(isCrd ? {} : markedGeneration(latest)),
        deletionTimestamp: meta.deletionTimestamp ?? formatTime(core.now()),
        ...(isNamespace || resolved.type.plural === "customresourcedefinitions"
          ? {}
          : { deletionGracePeriodSeconds: meta.deletionGracePeriodSeconds ?? 0 }),
        ...(finalizers.length > 0 ? { finalizers } : {}),
      },
      ...(isNamespace ? { status: { ...asObject(latest.status), phase: "Terminating" } } : {}),
      ...(resolved.type.plural === "customresourcedefinitions" &&
      resolved.type.group === "apiextensions.k8s.io"
        ? { status: crdTerminating(asObject(latest.status), core.now()) }
        : {}),
    };
    if (finalizers.length === 0) delete (marked.metadata as JsonObject).finalizers;
    if (dryRun) return { status: accepted, body: served(marked), warnings };
    const stored = core.store.put(resolved.table, marked, latest);
    core.afterChange(resolved.table, stored, false);
    return { status: accepted, body: served(stored), warnings };
  }
  if (dryRun)
    return {
      status: 200,
      body: resolved.type.returnDeletedObject
        ? served(latest)
        : Status.success(resolved.gr, name, uidOf(latest)),
      warnings,
    };
  if (resolved.type.group === "" && resolved.type.plural === "pods") {
    // Pods are deleted gracefully: kube-apiserver first stores the pod marked (deletionTimestamp,
    // a grace period of 0 — this emulator has no kubelet, so every pod is treated as unscheduled —
    // and the generation bumped), then deletes it; the answer is the deleted pod.
    const marked: JsonObject = {
      ...latest,
      metadata: {
        ...meta,
        ...markedGeneration(latest),
        deletionTimestamp: meta.deletionTimestamp ?? formatTime(core.now()),
        deletionGracePeriodSeconds: 0,
      },
    };
    const stored = core.store.put(resolved.table, marked, latest);
    core.afterChange(resolved.table, stored, false);
    const gone = core.store.remove(resolved.table, stored);
    core.afterChange(resolved.table, gone, true);
    return { status: 200, body: served(gone), warnings };
  }
  const gone = core.store.remove(resolved.table, latest);
  core.afterChange(resolved.table, gone, true);
  return {
    status: 200,
    body: resolved.type.returnDeletedObject
      ? served(latest)
      : Status.success(resolved.gr, name, uidOf(latest)),
    warnings,
  };
});

/** DELETE of a single object. */
export const remove = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  if (resolved.subresource !== undefined) return yield* Effect.fail(Status.methodNotAllowed());
  const options = yield* Effect.fromResult(parseOptions(request));
  const r = yield* deleteOne(core, resolved, request, options, resolved.name ?? "");
  return json(r.status, r.body, r.warnings);
});

/** DELETE of a collection: every selected object; the answer is the list as it was selected. */
export const removeCollection = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  select: () => Result.Result<JsonObject, Status.ApiError>,
): Effect.fn.Return<Response, Status.ApiError> {
  if (!resolved.type.verbs.includes("deletecollection")) return yield* Effect.fail(Status.methodNotAllowed());
  const options = yield* Effect.fromResult(parseOptions(request));
  const list = yield* Effect.fromResult(select());
  const items = Array.isArray(list.items) ? list.items.filter(isObject) : [];
  // One request: the warnings of every deletion go out together (each text once).
  const warnings: Array<string> = [];
  for (const obj of items) {
    const name = str(metaOf(obj).name) ?? "";
    const nsResolved = { ...resolved, namespace: str(metaOf(obj).namespace) ?? resolved.namespace };
    const deleted = yield* deleteOne(core, nsResolved, request, options, name).pipe(
      Effect.catchIf(
        (e) => e.reason === "NotFound",
        (e) => Effect.succeed({ warnings: e.warnings ?? [] }),
      ),
      Effect.mapError((e) => Status.withWarnings(e, warnings)),
    );
    warnings.push(...deleted.warnings);
  }
  return json(200, list, warnings);
});

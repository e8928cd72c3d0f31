/**
 * Create, update (PUT) and patch of objects and of their `status` subresource: body checks, the
 * system fields, optimistic concurrency on resourceVersion, no-op detection, and the commit.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Admit from "./Admit.ts";
import * as Body from "./Body.ts";
import * as BodyCheck from "./BodyCheck.ts";
import { canonical } from "./Canonical.ts";
import type { ApiRequest } from "./Emulator.ts";
import { managerOf } from "./FieldManager.ts";
import { type Core, json, type Resolved, type Response } from "./internal/Core.ts";
import { isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as Status from "./Status.ts";
import { nameOf, rvOf } from "./Store.ts";
import { checkNamespace, checkResourceVersion, isDryRun } from "./WriteChecks.ts";
import * as WriteOptions from "./WriteOptions.ts";

const served = (resolved: Resolved, obj: JsonObject): JsonObject =>
  ObjectMeta.serve(resolved.type, resolved.version, obj);

/** POST to a collection. */
export const create = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  if (resolved.subresource !== undefined) return yield* Effect.fail(Status.methodNotAllowed());
  if (resolved.type.custom) {
    const crd = core.store
      .table("apiextensions.k8s.io", "customresourcedefinitions")
      ?.get("", `${resolved.type.plural}.${resolved.type.group}`);
    if (crd !== undefined && ObjectMeta.isDeleting(crd)) {
      const body = Body.decode(request.body, false);
      const name =
        Result.isSuccess(body) && isObject(body.success) ? (str(metaOf(body.success).name) ?? "") : "";
      return yield* Effect.fail(
        Status.forbidden(
          resolved.gr,
          name,
          "create not allowed while custom resource definition is terminating",
        ),
      );
    }
  }
  const decoded = yield* Effect.fromResult(
    Body.decodeObjectBody(request.headers, request.body, resolved.type.kind, !resolved.type.custom),
  );
  const body = yield* Effect.fromResult(BodyCheck.checkBody(resolved, decoded, request.body));
  return yield* createFromBody(
    core,
    resolved,
    request,
    body,
    (obj, now) => ManagedFields.track(undefined, obj, managerOf(request), "Update", undefined, now, resolved),
    true,
  );
});

/** Creates an object from a checked body; `manage` records the managedFields of the new object. */
export const createFromBody = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  body: JsonObject,
  manage: (obj: JsonObject, now: number) => JsonObject,
  rejectResourceVersion = false,
) {
  const meta = metaOf(body);
  if (
    resolved.type.namespaced &&
    typeof meta.namespace === "string" &&
    meta.namespace !== "" &&
    meta.namespace !== resolved.namespace
  )
    return yield* Effect.fail(
      Status.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ),
    );
  const now = core.now();
  const decoded = ObjectMeta.decodeForCreate(resolved.type, resolved.namespace, body);
  const normalized = yield* Effect.fromResult(Admit.normalizeChecked(resolved.type, decoded, request.query));
  const nsProblem = checkNamespace(core, resolved, nameOf(normalized.object), true);
  if (nsProblem !== undefined) return yield* Effect.fail(nsProblem);
  const dryRun = isDryRun(request.query);
  const admitted = yield* Admit.admit({
    core,
    resolved,
    operation: "CREATE",
    object: manage(normalized.object, now),
    oldObject: undefined,
    warnings: normalized.warnings,
    options: WriteOptions.admissionOptions("CreateOptions", request.query),
    user: request.user,
    dryRun,
    prepare: (mutated) => ObjectMeta.prepareCreate(resolved.type, mutated, now, core.random),
  });
  const final = admitted.object as JsonObject;
  const staged = core.store.stage(resolved.table, final, undefined);
  const tooLarge = Admit.checkStoredSize(staged);
  if (tooLarge !== undefined) return yield* Effect.fail(Status.withWarnings(tooLarge, admitted.warnings));
  const finalName = nameOf(final);
  if (rejectResourceVersion && (str(meta.resourceVersion) ?? "") !== "")
    return yield* Effect.fail(
      Status.make(500, undefined, "resourceVersion should not be set on objects to be created"),
    );
  const existing = resolved.table.get(resolved.namespace ?? "", finalName);
  if (existing !== undefined)
    return yield* Effect.fail(
      Status.withWarnings(
        ObjectMeta.isDeleting(existing)
          ? Status.make(
              409,
              "AlreadyExists",
              `object is being deleted: ${Status.qualified(resolved.gr)} ${JSON.stringify(finalName)} already exists`,
              Status.alreadyExists(resolved.gr, finalName).status.details,
            )
          : Status.alreadyExists(resolved.gr, finalName),
        admitted.warnings,
      ),
    );
  const nsAgain = checkNamespace(core, resolved, finalName, true);
  if (nsAgain !== undefined) return yield* Effect.fail(Status.withWarnings(nsAgain, admitted.warnings));
  if (dryRun) return json(201, served(resolved, final), admitted.warnings);
  const stored = core.store.put(resolved.table, staged, undefined);
  core.afterChange(resolved.table, stored, false);
  return json(201, served(resolved, stored), admitted.warnings);
});

/** `obj` with the managedFields of `from` (without any when `from` has none). */
const withManagedFieldsOf = (from: JsonObject, obj: JsonObject): JsonObject => {
  const { managedFields: _old, ...meta } = metaOf(obj);
  const managedFields = metaOf(from).managedFields;
  return { ...obj, metadata: managedFields === undefined ? meta : { ...meta, managedFields } };
};

/** Stores an update computed from the current object; retried when the object changed meanwhile. */
export const commitUpdate = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  compute: (
    current: JsonObject,
  ) => Effect.Effect<
    { readonly next: JsonObject; readonly strictRv: boolean; readonly warnings?: ReadonlyArray<string> },
    Status.ApiError
  >,
  createIfMissing?: () => Effect.Effect<Response, Status.ApiError>,
) {
  const ns = resolved.namespace ?? "";
  const name = resolved.name ?? "";
  for (let attempt = 0; ; attempt++) {
    const current = resolved.table.get(ns, name);
    if (current === undefined) {
      if (createIfMissing !== undefined) return yield* createIfMissing();
      return yield* Effect.fail(Status.notFound(resolved.gr, name));
    }
    const { next, strictRv, warnings } = yield* compute(current);
    const dryRun = isDryRun(request.query);
    const admitted = yield* Admit.admit({
      core,
      resolved,
      operation: "UPDATE",
      object: next,
      oldObject: current,
      warnings: warnings ?? [],
      options: WriteOptions.admissionOptions("UpdateOptions", request.query),
      user: request.user,
      dryRun,
      // kube-apiserver's BeforeUpdate runs on the object as mutating admission left it: what the
      // update may not change is reset again (a status write keeps only its status, a main-resource
      // write the old status), and the generation follows the spec.
      // The managedFields are the tracked ones `compute` wrote (none when tracking left none,
      // which prepareUpdate alone would take for a body without them and keep the old ones).
      prepare: (mutated) =>
        ObjectMeta.bumpGeneration(
          resolved.type,
          current,
          withManagedFieldsOf(
            mutated,
            ObjectMeta.prepareUpdate(
              resolved.type,
              current,
              mutated,
              resolved.subresource === "status" ? "status" : undefined,
            ),
          ),
        ),
    });
    const final = admitted.object as JsonObject;
    const staged = core.store.stage(resolved.table, final, current);
    const tooLarge = Admit.checkStoredSize(staged);
    if (tooLarge !== undefined) return yield* Effect.fail(Status.withWarnings(tooLarge, admitted.warnings));
    const latest = resolved.table.get(ns, name);
    if (latest !== current) {
      if (strictRv || attempt >= 8)
        return yield* Effect.fail(
          Status.withWarnings(Status.conflict(resolved.gr, name, Status.OBJECT_MODIFIED), admitted.warnings),
        );
      continue;
    }
    if (ObjectMeta.isNoop(current, final) || dryRun)
      return json(200, served(resolved, dryRun ? final : current), admitted.warnings);
    if (ObjectMeta.canBeRemoved(final)) {
      // As kube-apiserver's registry does when an update empties the finalizers of a deleting
      // object: the update itself is never stored; the stored object (finalizers and all) is
      // deleted, so the DELETED event carries it at the deletion's resourceVersion, and the answer
      // is the updated object at the last stored resourceVersion.
      const gone = core.store.remove(resolved.table, current);
      core.afterChange(resolved.table, gone, true);
      const answer = canonical(
        resolved.type.custom,
        ObjectMeta.withMeta(final, { resourceVersion: rvOf(current) }),
      );
      return json(200, served(resolved, answer), admitted.warnings);
    }
    const stored = core.store.put(resolved.table, staged, current);
    core.afterChange(resolved.table, stored, false);
    return json(200, served(resolved, stored), admitted.warnings);
  }
});

/** PUT of an object or its status. */
export const update = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  const decoded = yield* Effect.fromResult(
    Body.decodeObjectBody(request.headers, request.body, resolved.type.kind, !resolved.type.custom),
  );
  const body = yield* Effect.fromResult(BodyCheck.checkBody(resolved, decoded, request.body));
  const meta = metaOf(body);
  const bodyName = str(meta.name) ?? "";
  if (bodyName !== "" && bodyName !== resolved.name)
    return yield* Effect.fail(
      Status.badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${resolved.name ?? ""})`,
      ),
    );
  if (
    resolved.type.namespaced &&
    typeof meta.namespace === "string" &&
    meta.namespace !== "" &&
    meta.namespace !== resolved.namespace
  )
    return yield* Effect.fail(
      Status.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ),
    );
  const withIds: JsonObject = {
    ...body,
    metadata: {
      ...meta,
      name: resolved.name,
      ...(resolved.type.namespaced ? { namespace: resolved.namespace } : {}),
    },
  };
  return yield* commitUpdate(core, resolved, request, (current) =>
    Effect.gen(function* () {
      const strictRv = yield* Effect.fromResult(
        checkResourceVersion(resolved, withIds, current, !resolved.type.allowUnconditionalUpdate),
      );
      let next = ObjectMeta.prepareUpdate(
        resolved.type,
        current,
        withIds,
        resolved.subresource === "status" ? "status" : undefined,
      );
      const normalized = yield* Effect.fromResult(Admit.normalizeChecked(resolved.type, next, request.query));
      next = ManagedFields.track(
        current,
        normalized.object,
        managerOf(request),
        "Update",
        resolved.subresource,
        core.now(),
        resolved,
      );
      return { next, strictRv, warnings: normalized.warnings };
    }),
  );
});

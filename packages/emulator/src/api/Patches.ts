/**
 * PATCH requests: JSON patch, JSON merge patch, strategic merge patch (built-in types only; 415
 * for custom resources, as real servers answer) and server-side apply, feeding the update path.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Admit from "./Admit.ts";
import * as Body from "./Body.ts";
import * as BodyCheck from "./BodyCheck.ts";
import type { ApiRequest } from "./Emulator.ts";
import { managerOf } from "./FieldManager.ts";
import type { Core, Resolved } from "./internal/Core.ts";
import { type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as JsonPatch from "./JsonPatch.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as MergePatch from "./MergePatch.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as ServerSideApply from "./ServerSideApply.ts";
import * as Status from "./Status.ts";
import * as StrategicMergePatch from "./StrategicMergePatch.ts";
import { checkResourceVersion } from "./WriteChecks.ts";
import * as Writes from "./Writes.ts";

const MAX_JSON_PATCH_OPERATIONS = 10000;

/** Applies a json, merge or strategic patch to the served form of the current object. */
export const applyPatch = (
  patchType: "json" | "merge" | "strategic",
  current: JsonObject,
  patch: unknown,
): Result.Result<unknown, Status.ApiError> => {
  switch (patchType) {
    case "json": {
      const ops = JsonPatch.decodeOperations(patch);
      if (Result.isFailure(ops)) return Result.fail(Status.badRequest(ops.failure));
      if (ops.success.length > MAX_JSON_PATCH_OPERATIONS)
        return Result.fail(
          Status.requestEntityTooLarge(
            `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.success.length}`,
          ),
        );
      const r = JsonPatch.apply(current, ops.success);
      return Result.isFailure(r) ? Result.fail(Status.unprocessable()) : Result.succeed(r.success);
    }
    case "merge":
      return Result.succeed(MergePatch.applyMergePatch(current, patch));
    case "strategic": {
      const r = StrategicMergePatch.apply(current, patch);
      return Result.isFailure(r) ? Result.fail(Status.badRequest(r.failure)) : Result.succeed(r.success);
    }
  }
};

const nameMismatch = (resolved: Resolved, body: JsonObject) => {
  const bodyName = str(metaOf(body).name) ?? "";
  return bodyName === resolved.name
    ? undefined
    : Status.badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${resolved.name ?? ""})`,
      );
};

/** The object an update stores, normalized under the request's field validation directive. */
const prepared = (resolved: Resolved, request: ApiRequest, current: JsonObject, body: JsonObject) =>
  Admit.normalizeChecked(
    resolved.type,
    ObjectMeta.prepareUpdate(
      resolved.type,
      current,
      body,
      resolved.subresource === "status" ? "status" : undefined,
    ),
    request.query,
  );

/**
 * Apply configurations are converted to typed values first; string maps holding other values fail
 * that conversion as a 500, as the apiserver answers.
 */
const typedPatchProblem = (resolved: Resolved, applied: JsonObject): Status.ApiError | undefined => {
  const meta = metaOf(applied);
  for (const field of ["labels", "annotations"] as const) {
    const map = meta[field];
    if (typeof map !== "object" || map === null || Array.isArray(map)) continue;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v === "string") continue;
      const t = resolved.type;
      const rendered = v === null ? "<nil>" : typeof v === "object" ? JSON.stringify(v) : String(v);
      return Status.make(
        500,
        undefined,
        `failed to create typed patch object (${str(meta.namespace) ?? ""}/${str(meta.name) ?? ""}; ${t.group}/${resolved.version}, Kind=${t.kind}): .metadata.${field}.${k}: expected string, got &value.valueUnstructured{Value:${rendered}}`,
      );
    }
  }
  return undefined;
};

const serverSideApply = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  const manager = request.query.get("fieldManager") ?? "";
  if (manager === "")
    return yield* Effect.fail(
      Status.invalid("meta.k8s.io", "PatchOptions", "", [
        { type: "FieldValueRequired", field: "fieldManager", detail: "is required for apply patch" },
      ]),
    );
  const force = request.query.get("force") === "true";
  const decoded = yield* Effect.fromResult(Body.decode(request.body, true));
  const applied = yield* Effect.fromResult(BodyCheck.checkBody(resolved, decoded));
  const typed = typedPatchProblem(resolved, applied);
  if (typed !== undefined) return yield* Effect.fail(typed);
  const mismatch = nameMismatch(resolved, applied);
  if (mismatch !== undefined) return yield* Effect.fail(mismatch);
  return yield* Writes.commitUpdate(
    core,
    resolved,
    request,
    (current) =>
      Effect.gen(function* () {
        const servedCurrent = ObjectMeta.serve(resolved.type, resolved.version, current);
        const merged = yield* Effect.fromResult(
          ServerSideApply.apply(resolved, servedCurrent, applied, manager, force, core.now()),
        );
        yield* Effect.fromResult(checkResourceVersion(resolved, merged, current, false));
        const normalized = yield* Effect.fromResult(prepared(resolved, request, current, merged));
        return { next: normalized.object, strictRv: false, warnings: normalized.warnings };
      }),
    () =>
      Effect.gen(function* () {
        if (resolved.subresource !== undefined)
          return yield* Effect.fail(Status.notFound(resolved.gr, resolved.name ?? ""));
        const created = yield* Effect.fromResult(
          ServerSideApply.apply(resolved, undefined, applied, manager, force, core.now()),
        );
        return yield* Writes.createFromBody(core, resolved, request, created, (obj) =>
          ManagedFields.withEntries(obj, ManagedFields.decode(created), resolved.type.custom),
        );
      }),
  );
});

/** PATCH of an object or its status, in any of the four patch types. */
export const patch = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  const media = Body.mediaType(request.headers);
  const patchType = Body.patchTypeOf(media);
  const strategicAllowed = !resolved.type.custom;
  if (patchType === undefined || (patchType === "strategic" && !strategicAllowed))
    return yield* Effect.fail(
      strategicAllowed
        ? Status.routeUnsupportedMediaType()
        : Status.unsupportedMediaType(media, Body.patchMediaTypes(false)),
    );
  if (patchType === "apply") return yield* serverSideApply(core, resolved, request);
  if (request.query.get("force") !== null)
    return yield* Effect.fail(
      Status.invalid("meta.k8s.io", "PatchOptions", "", [
        { type: "FieldValueForbidden", field: "force", detail: "may not be specified for non-apply patch" },
      ]),
    );
  const patchBody = yield* Effect.fromResult(Body.decode(request.body, false));
  const manager = managerOf(request);
  return yield* Writes.commitUpdate(core, resolved, request, (current) =>
    Effect.gen(function* () {
      const servedCurrent = ObjectMeta.serve(resolved.type, resolved.version, current);
      const patched = yield* Effect.fromResult(applyPatch(patchType, servedCurrent, patchBody));
      const body = yield* Effect.fromResult(BodyCheck.checkBody(resolved, patched));
      const mismatch = nameMismatch(resolved, body);
      if (mismatch !== undefined) return yield* Effect.fail(mismatch);
      yield* Effect.fromResult(checkResourceVersion(resolved, body, current, false));
      const normalized = yield* Effect.fromResult(prepared(resolved, request, current, body));
      const next = ManagedFields.track(
        current,
        normalized.object,
        manager,
        "Update",
        resolved.subresource,
        core.now(),
        resolved,
      );
      return { next, strictRv: false, warnings: normalized.warnings };
    }),
  );
});

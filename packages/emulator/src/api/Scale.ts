/**
 * The `scale` subresource (autoscaling/v1 Scale) of deployments and of custom resources that
 * declare it: read from and written to the replica paths of the parent object.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as Body from "./Body.ts";
import type { ApiRequest } from "./Emulator.ts";
import type { Core, Resolved } from "./internal/Core.ts";
import { getPath, isObject, type JsonObject, metaOf, setPath } from "./internal/Json.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as Patches from "./Patches.ts";
import type { ScaleSubresource } from "./ResourceType.ts";
import * as Status from "./Status.ts";
import * as Writes from "./Writes.ts";

const pathOf = (jsonPath: string): Array<string> => jsonPath.replace(/^\./, "").split(".");

/** The Scale view of an object. */
export const scaleOf = (scale: ScaleSubresource, obj: JsonObject): JsonObject => {
  const meta = metaOf(obj);
  const specReplicas = getPath(obj, pathOf(scale.specReplicasPath));
  const statusReplicas = getPath(obj, pathOf(scale.statusReplicasPath));
  const selector =
    scale.labelSelectorPath === undefined ? undefined : getPath(obj, pathOf(scale.labelSelectorPath));
  // Deployments report their spec.selector in the Scale's status, as a selector string.
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      ...(meta.namespace === undefined ? {} : { namespace: meta.namespace }),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof specReplicas === "number" ? specReplicas : 0 },
    status: {
      replicas: typeof statusReplicas === "number" ? statusReplicas : 0,
      ...(typeof selector === "string"
        ? { selector }
        : isObject(selector)
          ? { selector: labelSelectorString(selector) }
          : {}),
    },
  };
};

const labelSelectorString = (selector: JsonObject): string =>
  Object.entries(isObject(selector.matchLabels) ? selector.matchLabels : {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(",");

export const get = (resolved: Resolved): Result.Result<JsonObject, Status.ApiError> => {
  const obj = resolved.table.get(resolved.namespace ?? "", resolved.name ?? "");
  if (obj === undefined || resolved.type.scale === undefined)
    return Result.fail(Status.notFound(resolved.gr, resolved.name ?? ""));
  return Result.succeed(scaleOf(resolved.type.scale, obj));
};

/** PUT or PATCH of a Scale: sets the parent's spec replicas. */
export const write = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  method: "PUT" | "PATCH",
) {
  const scale = resolved.type.scale;
  if (scale === undefined) return yield* Effect.fail(Status.resourceNotFound());
  const patchType = method === "PATCH" ? Body.patchTypeOf(Body.mediaType(request.headers)) : undefined;
  if (method === "PATCH" && (patchType === undefined || patchType === "apply"))
    return yield* Effect.fail(
      Status.unsupportedMediaType(
        Body.mediaType(request.headers),
        Body.patchMediaTypes(true).filter((m) => !m.includes("apply")),
      ),
    );
  const raw =
    method === "PUT"
      ? yield* Effect.fromResult(Body.decodeObjectBody(request.headers, request.body, "Scale"))
      : yield* Effect.fromResult(Body.decode(request.body, false));
  const response = yield* Writes.commitUpdate(core, resolved, request, (current) =>
    Effect.gen(function* () {
      const currentScale = scaleOf(scale, current);
      const wanted =
        patchType === undefined || patchType === "apply"
          ? raw
          : yield* Effect.fromResult(Patches.applyPatch(patchType, currentScale, raw));
      if (!isObject(wanted))
        return yield* Effect.fail(Status.badRequest("the Scale body must be a JSON object"));
      const rv = metaOf(wanted).resourceVersion;
      if (typeof rv === "string" && rv !== "" && rv !== metaOf(current).resourceVersion)
        return yield* Effect.fail(Status.conflict(resolved.gr, resolved.name ?? "", Status.OBJECT_MODIFIED));
      const replicas = getPath(wanted, ["spec", "replicas"]);
      if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0)
        return yield* Effect.fail(
          Status.invalid("autoscaling", "Scale", resolved.name ?? "", [
            {
              type: "FieldValueInvalid",
              field: "spec.replicas",
              value: replicas ?? null,
              detail: "must be greater than or equal to 0",
            },
          ]),
        );
      const next = ObjectMeta.prepareUpdate(
        resolved.type,
        current,
        setPath(current, pathOf(scale.specReplicasPath), replicas),
        undefined,
      );
      return { next, strictRv: false };
    }),
  );
  if (response._tag !== "Complete") return response;
  const stored = resolved.table.get(resolved.namespace ?? "", resolved.name ?? "");
  return stored === undefined
    ? response
    : { ...response, body: new TextEncoder().encode(JSON.stringify(scaleOf(scale, stored))) };
});

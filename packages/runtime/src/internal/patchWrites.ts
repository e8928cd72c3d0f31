/**
 * The requests of a cycle's patch as typed values, built by pure functions: its merge patches
 * (results to `/status` first, then the rest to the object) and the guarded JSON patches of its
 * functions against a reference body. `PatchApplier.apply` performs them.
 */
import {
  type JsonObject,
  type JsonPatchOp,
  type Patch,
  PatchValue,
  type RawBody,
  Resource,
} from "@kopf/structs";
import * as Result from "effect/Result";

/** One request of a patch: its target, its content type and its payload. */
export interface Write {
  readonly part: "status" | "object";
  readonly type: "merge" | "json";
  readonly payload: JsonObject | ReadonlyArray<JsonPatchOp>;
}

/**
 * The merge patches of a patch, results first (pure): the status part to `/status` when status
 * is a subresource, then the rest to the object; empty parts are left out.
 *
 * @example
 * const patch = Patch.make(body)
 * patch.status.createFn = { message: "done" }
 * patch.meta.annotations["kopf.zalando.org/last-handled-configuration"] = "{...}"
 * mergeRequests(resource, patch) // [{ part: "status", ... }, { part: "object", ... }]
 */
export const mergeRequests = (resource: Resource.Resource, patch: Patch.Patch): ReadonlyArray<Write> =>
  mergeRequestsOf(resource, patch.toValue());

/** The merge patches of a patch's value (see {@link mergeRequests}). */
export const mergeRequestsOf = (
  resource: Resource.Resource,
  value: PatchValue.PatchValue,
): ReadonlyArray<Write> => {
  const toWrite = (part: Write["part"], payload: JsonObject | undefined): ReadonlyArray<Write> =>
    payload === undefined ? [] : [{ part, type: "merge", payload }];
  if (!Resource.hasStatusSubresource(resource))
    return PatchValue.isEmpty({ ...value, ops: [] }) ? [] : toWrite("object", value.mergePatch);
  return [
    ...toWrite("status", PatchValue.statusPart(value)),
    ...toWrite("object", PatchValue.mainPart(value)),
  ];
};

/**
 * The guarded JSON patches of a patch's functions against a reference body (pure): the object's
 * operations, then the status's when status is a subresource, each preceded by a `test` of the
 * reference's resource version (the status one is re-guarded with the object response's version
 * by `PatchApplier.apply`). Fails when a function throws.
 *
 * @example
 * const patch = Patch.make(body)
 * patch.fns.push(Finalizers.blockDeletion("example.com/fin"))
 * jsonRequests(resource, patch, body) // Result.succeed([{ part: "object", type: "json", payload: [test, add] }])
 */
export const jsonRequests = (
  resource: Resource.Resource,
  patch: Patch.Patch,
  reference: RawBody,
): Result.Result<ReadonlyArray<Write>, Patch.PatchError> => {
  if (patch.fns.length === 0) return Result.succeed([]);
  return Result.map(PatchValue.asJsonPatch(patch.toValue(), reference), (ops) => {
    const asSubresource = Resource.hasStatusSubresource(resource);
    const objectOps = asSubresource ? ops.filter((op) => !PatchValue.isStatusOp(op)) : ops;
    const statusOps = asSubresource ? ops.filter(PatchValue.isStatusOp) : [];
    const guarded = (part: Write["part"], list: ReadonlyArray<JsonPatchOp>): ReadonlyArray<Write> =>
      list.length === 0 ? [] : [{ part, type: "json", payload: [PatchValue.guard(reference), ...list] }];
    return [...guarded("object", objectOps), ...guarded("status", statusOps)];
  });
};

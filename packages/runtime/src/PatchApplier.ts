/**
 * The application of one cycle's patch to an object (Kopf's `patch_obj` and `patch_and_check`,
 * spec §5.7): up to four API calls, in this order and each only when needed —
 *
 * 1. a merge patch of the object (without `status` when status is a subresource);
 * 2. a merge patch of the `/status` subresource;
 * 3. a JSON patch of the object: the merge patch and the patch functions applied to the freshest
 *    known body, diffed, guarded by a `test` of `metadata.resourceVersion`;
 * 4. a JSON patch of `/status`, guarded by the resource version of the previous response.
 *
 * A 422 on a JSON patch (the object changed under us) stops and hands back the patch functions
 * as the remaining patch, to be retried on the next cycle against a newer body; a 404 anywhere
 * means the object is gone (nothing to return); other API errors fail the effect (the
 * throttler's business). After merge-patching, the response is compared with what was asked
 * and unexpected differences are logged as a warning (§16 U).
 */
import type { ApiError } from "@kopf/client";
import { KubeApi } from "@kopf/client";
import { Body, type JsonObject, type JsonPatchOp, Patch, type RawBody, Resource } from "@kopf/structs";
import { Effect, Result } from "effect";
import { inconsistencies } from "./internal/patchConsistency.ts";
import * as Metrics from "./Metrics.ts";

/** The suffix Kopf appends to a version that will never come as an event (last finalizer removed while deleting). */
export const NEVER_ARRIVES = "~which~never~arrives";

/** What to patch. */
export interface PatchRequest {
  readonly resource: Resource.Resource;
  /** The object as last seen: its name and namespace address it; it is the JSON patches' reference. */
  readonly body: RawBody;
  readonly patch: Patch.Patch;
}

/** What patching left. */
export interface Applied {
  /** The freshest body (the last response), `undefined` when nothing was patched or the object is gone. */
  readonly body: RawBody | undefined;
  /** The patch functions left after a 422 conflict (to retry next cycle), or `undefined`. */
  readonly remaining: Patch.Patch | undefined;
  /** Whether the object was found gone (404). */
  readonly gone: boolean;
  /** How many API calls were made. */
  readonly calls: number;
  /**
   * The resource version to await as our own patch's echo (consistency, §7.3); `undefined` when
   * nothing was patched. `"{rv}~which~never~arrives"` when the response shows a deletion with no
   * finalizers left: the API server will not bump the version, so the wait must time out.
   */
  readonly resourceVersion: string | undefined;
}

const NOT_PATCHED: Applied = {
  body: undefined,
  remaining: undefined,
  gone: false,
  calls: 0,
  resourceVersion: undefined,
};

const isStatusOp = (op: JsonPatchOp): boolean => op.path === "/status" || op.path.startsWith("/status/");

const versionTest = (body: RawBody): JsonPatchOp =>
  ({
    op: "test",
    path: "/metadata/resourceVersion",
    value: Body.resourceVersion(body) ?? null,
  }) as JsonPatchOp;

const awaitedVersion = (body: RawBody | undefined): string | undefined => {
  if (body === undefined) return undefined;
  const rv = Body.resourceVersion(body);
  if (rv === undefined) return undefined;
  const released = Body.deletionTimestamp(body) !== undefined && Body.finalizers(body).length === 0;
  return released ? `${rv}${NEVER_ARRIVES}` : rv;
};

const render = (value: unknown): string => JSON.stringify(value);

/**
 * Applies the patch with at most four API calls (see the module comment). A patch function that
 * throws is a framework-level failure (it fails the effect as a defect-free `PatchError`).
 *
 * @example
 * ```ts
 * import { Patch } from "@kopf/structs"
 * const patch = Patch.make(body)
 * patch.status.phase = "Ready"
 * const applied = yield* PatchApplier.apply({ resource, body, patch })
 * applied.resourceVersion // the version to await before the next changing cycle
 * ```
 */
export const apply = (request: PatchRequest): Effect.Effect<Applied, ApiError | Patch.PatchError, KubeApi> =>
  Effect.gen(function* () {
    const { resource, body, patch } = request;
    if (patch.isEmpty()) return NOT_PATCHED;
    const api = yield* KubeApi;
    const location = { namespace: Body.namespace(body) ?? null, name: Body.name(body) ?? "" };
    const asSubresource = Resource.hasStatusSubresource(resource);
    const merge = patch.toMergePatch() as Record<string, unknown>;
    const { status: statusPatch, ...rest } = merge;
    const objectPatch: JsonObject = (asSubresource ? rest : merge) as JsonObject;
    const hasStatusPatch = asSubresource && statusPatch !== undefined;

    let calls = 0;
    let freshest: RawBody | undefined;
    const call = (subresource: string | undefined, type: "merge" | "json", payload: unknown) =>
      Effect.map(
        api.patch(resource, subresource === undefined ? location : { ...location, subresource }, {
          type,
          body: payload,
        }),
        (response) => {
          calls += 1;
          freshest = response;
          return response;
        },
      ).pipe(Effect.tapError(() => Effect.sync(() => (calls += 1))));

    const steps = Effect.gen(function* () {
      if (Object.keys(objectPatch).length > 0) {
        yield* Effect.logDebug(`Merge-patching the resource with: ${render(objectPatch)}`);
        yield* call(undefined, "merge", objectPatch);
      }
      if (hasStatusPatch) {
        yield* Effect.logDebug(`Merge-patching the status with: ${render({ status: statusPatch })}`);
        yield* call("status", "merge", { status: statusPatch });
      }
      if (freshest !== undefined) {
        const found = inconsistencies(merge, freshest);
        if (found.length > 0)
          yield* Effect.logWarning(`Merge-patching finished with inconsistencies: ${render(found)}`);
      }
      if (patch.fns.length === 0) return undefined;
      const reference = freshest ?? body;
      const ops = patch.asJsonPatch(reference);
      if (Result.isFailure(ops)) return yield* Effect.fail(ops.failure);
      const objectOps = asSubresource ? ops.success.filter((op) => !isStatusOp(op)) : ops.success;
      const statusOps = asSubresource ? ops.success.filter(isStatusOp) : [];
      if (objectOps.length > 0) {
        const payload = [versionTest(freshest ?? body), ...objectOps];
        yield* Effect.logDebug(`JSON-patching the resource with: ${render(payload)}`);
        const conflict = yield* call(undefined, "json", payload).pipe(conflictAsRemaining(patch));
        if (conflict !== undefined) return conflict;
      }
      if (statusOps.length > 0) {
        const payload = [versionTest(freshest ?? body), ...statusOps];
        yield* Effect.logDebug(`JSON-patching the status with: ${render(payload)}`);
        const conflict = yield* call("status", "json", payload).pipe(conflictAsRemaining(patch));
        if (conflict !== undefined) return conflict;
      }
      return undefined;
    });

    return yield* steps.pipe(
      Effect.tap(() => Metrics.patchApplied),
      Effect.map(
        (remaining): Applied => ({
          body: freshest,
          remaining,
          gone: false,
          calls,
          resourceVersion: awaitedVersion(freshest),
        }),
      ),
      Effect.catchIf(
        (error): error is ApiError => error._tag === "KubeApiError" && error.reason === "NotFound",
        () =>
          Effect.as(Effect.logDebug("Patching was skipped: the object does not exist anymore."), {
            body: undefined,
            remaining: undefined,
            gone: true,
            calls,
            resourceVersion: undefined,
          } satisfies Applied),
      ),
    );
  });

/** A 422 on a JSON patch: the patch functions become the remaining patch (no reference body). */
const conflictAsRemaining =
  (patch: Patch.Patch) =>
  <A, R>(effect: Effect.Effect<A, ApiError, R>): Effect.Effect<Patch.Patch | undefined, ApiError, R> =>
    effect.pipe(
      Effect.as(undefined),
      Effect.catchIf(
        (error): error is ApiError => error._tag === "KubeApiError" && error.reason === "Invalid",
        () => Effect.succeed(new Patch.Patch(undefined, { fns: patch.fns })),
      ),
    );

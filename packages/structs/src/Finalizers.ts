/**
 * Finalizers: whether an object is being deleted, whether our finalizer blocks its deletion,
 * and the patch functions that add or remove the finalizer (Kopf's `finalizers.py`, docs/behaviour/processing.md#json-patches).
 * As patch functions they become index-precise JSON-patch operations
 * (`add /metadata/finalizers/2`, `remove /metadata/finalizers/1`) via `Patch.asJsonPatch`.
 */
import * as Body from "./Body.ts";
import type * as FieldPath from "./FieldPath.ts";
import { withoutKey } from "./internal/ownKeys.ts";
import { scoped } from "./internal/scopedFns.ts";
import { isObject } from "./Json.ts";
import type { PatchFn } from "./Patch.ts";

// What the finalizer functions change: the list, and `metadata` on the way to it (they create
// it, or remove it when it is left empty). Rendered as a JSON patch, they get a copy of these
// alone (internal/scopedFns.ts).
const FINALIZERS: ReadonlyArray<FieldPath.FieldPath> = [["metadata", "finalizers"]];

/** The finalizer Kopf puts on objects by default (`settings.persistence.finalizer`). */
export const DEFAULT_FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

/**
 * Whether the object is being deleted: `metadata.deletionTimestamp` is set (not null).
 *
 * @example
 * isDeletionOngoing({ metadata: { deletionTimestamp: "2020-12-31T23:59:59Z" } }) // true
 */
export const isDeletionOngoing = (body: Body.RawBody): boolean => {
  const value = Body.meta(body).deletionTimestamp;
  return value !== undefined && value !== null;
};

/**
 * Whether `finalizer` is in `metadata.finalizers`.
 *
 * @example
 * hasFinalizer({ metadata: { finalizers: ["other", "fin"] } }, "fin") // true
 */
export const hasFinalizer = (body: Body.RawBody, finalizer: string): boolean =>
  Body.finalizers(body).includes(finalizer);

/**
 * Whether the deletion of the object is blocked by `finalizer` (Kopf's `is_deletion_blocked`:
 * the finalizer is present).
 *
 * @example
 * isDeletionBlocked({ metadata: { finalizers: ["fin"] } }, "fin") // true
 */
export const isDeletionBlocked = (body: Body.RawBody, finalizer: string): boolean =>
  hasFinalizer(body, finalizer);

/**
 * A patch function appending `finalizer` to `metadata.finalizers` unless it is already there,
 * creating `metadata` and the list when missing.
 *
 * @example
 * patch.fns.push(blockDeletion(DEFAULT_FINALIZER))
 */
export const blockDeletion = (finalizer: string): PatchFn =>
  scoped(FINALIZERS, (body) => {
    if (!isObject(body.metadata)) body.metadata = {};
    const meta = body.metadata;
    if (!Array.isArray(meta.finalizers)) meta.finalizers = [];
    if (!meta.finalizers.includes(finalizer)) meta.finalizers.push(finalizer);
  });

/**
 * A patch function removing every occurrence of `finalizer` from `metadata.finalizers`, then
 * removing the list if it is empty and `metadata` if that is empty (as Kopf does).
 *
 * @example
 * patch.fns.push(allowDeletion(DEFAULT_FINALIZER))
 */
export const allowDeletion = (finalizer: string): PatchFn =>
  scoped(FINALIZERS, (body) => {
    let meta: { [key: string]: any } | undefined = isObject(body.metadata) ? body.metadata : undefined;
    if (meta === undefined) return;
    if (Array.isArray(meta.finalizers)) {
      meta.finalizers = meta.finalizers.filter((f: unknown) => f !== finalizer);
      // Without `delete` (see `withoutKey`): the diff that follows reads the whole of `metadata`.
      if (meta.finalizers.length === 0) body.metadata = meta = withoutKey(meta, "finalizers");
    }
    if (Object.keys(meta).length === 0) delete body.metadata;
  });

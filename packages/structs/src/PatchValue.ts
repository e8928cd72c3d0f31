/**
 * A patch as an immutable, typed value: a JSON merge patch (`null` deletes a field) plus the
 * pending operations (functions transforming a copy of the body), built by pure functions. It is
 * what the runtime sends: the merge patch split into its status part and its main part for the
 * status subresource, and the operations rendered as a JSON patch guarded by a `test` of the
 * reference's resource version.
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import type { MutableBody, RawBody } from "./Body.ts";
import * as Body from "./Body.ts";
import * as FieldPath from "./FieldPath.ts";
import { getOwn, setOwn } from "./internal/ownKeys.ts";
import { copyAlong, scopeOf } from "./internal/scopedFns.ts";
import { deepCopy, isObject, type JsonObject, type JsonValue } from "./Json.ts";
import * as JsonPatch from "./JsonPatch.ts";

/** A transformation of the body, applied in place to a private copy of it. */
export type PatchFn = (body: MutableBody) => void;

/** Why a JSON patch could not be built. */
export type PatchErrorReason = "NoReference" | "FnFailed";

/** A JSON patch could not be built from a patch. */
export class PatchError extends Data.TaggedError("PatchError")<{
  readonly reason: PatchErrorReason;
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** A patch: a merge patch and the operations applied after it, in order. */
export interface PatchValue {
  readonly mergePatch: JsonObject;
  readonly ops: ReadonlyArray<PatchFn>;
}

/**
 * The patch that changes nothing.
 *
 * @example
 * isEmpty(empty) // true
 */
export const empty: PatchValue = { mergePatch: {}, ops: [] };

/**
 * A patch of a merge patch and operations (both copied).
 *
 * @example
 * make({ status: { phase: "Ready" } }).mergePatch // { status: { phase: "Ready" } }
 */
export const make = (mergePatch: JsonObject = {}, ops: Iterable<PatchFn> = []): PatchValue => ({
  mergePatch: deepCopy(mergePatch),
  ops: [...ops],
});

/**
 * Whether the patch has nothing to apply (no merge-patch field and no operation).
 *
 * @example
 * isEmpty(make({ spec: {} })) // false: an explicit empty field is still sent
 */
export const isEmpty = (patch: PatchValue): boolean =>
  Object.keys(patch.mergePatch).length === 0 && patch.ops.length === 0;

const combine = (into: JsonObject, from: JsonObject): JsonObject => {
  const out: JsonObject = { ...into };
  for (const key of Object.keys(from)) {
    const next = getOwn(from, key) as JsonValue | undefined;
    if (next === undefined) continue;
    const prev = getOwn(out, key);
    setOwn(
      out,
      key,
      isObject(prev) && isObject(next) ? combine(prev as JsonObject, next as JsonObject) : deepCopy(next),
    );
  }
  return out;
};

/**
 * Merges another merge patch into the patch's: objects merge key by key, everything else (also
 * `null`) replaces what was there.
 *
 * @example
 * merge(make({ status: { a: 1 } }), { status: { b: null } }).mergePatch // { status: { a: 1, b: null } }
 */
export const merge = (patch: PatchValue, mergePatch: JsonObject): PatchValue => ({
  ...patch,
  mergePatch: combine(patch.mergePatch, mergePatch),
});

/**
 * Sets the field at `path` of the merge patch (parents are created; non-object parents replaced).
 *
 * @example
 * setPath(empty, ["metadata", "labels", "app"], "web").mergePatch // { metadata: { labels: { app: "web" } } }
 */
export const setPath = (patch: PatchValue, path: FieldPath.FieldPath, value: JsonValue): PatchValue =>
  path.length === 0
    ? patch
    : { ...patch, mergePatch: FieldPath.set(patch.mergePatch, path, deepCopy(value)) };

/**
 * Marks the field at `path` for removal (a `null` in the merge patch).
 *
 * @example
 * removePath(empty, ["spec", "replicas"]).mergePatch // { spec: { replicas: null } }
 */
export const removePath = (patch: PatchValue, path: FieldPath.FieldPath): PatchValue =>
  setPath(patch, path, null);

/**
 * Appends operations, applied after the merge patch and the earlier operations.
 *
 * @example
 * withOps(empty, Finalizers.blockDeletion("example.com/fin")).ops.length // 1
 */
export const withOps = (patch: PatchValue, ...ops: ReadonlyArray<PatchFn>): PatchValue => ({
  ...patch,
  ops: [...patch.ops, ...ops],
});

/**
 * The merge patch of the `/status` subresource (`{ status }`), or `undefined` without `status`.
 *
 * @example
 * statusPart(make({ status: { a: 1 }, spec: { b: 2 } })) // { status: { a: 1 } }
 */
export const statusPart = (patch: PatchValue): JsonObject | undefined => {
  const status = getOwn(patch.mergePatch, "status") as JsonValue | undefined;
  return status === undefined ? undefined : { status: deepCopy(status) };
};

/**
 * The merge patch of the object without `status`, or `undefined` when nothing else is left.
 *
 * @example
 * mainPart(make({ status: { a: 1 }, spec: { b: 2 } })) // { spec: { b: 2 } }
 */
export const mainPart = (patch: PatchValue): JsonObject | undefined => {
  // A loop rather than an object rest pattern (which V8 runs through a slow generic path).
  const rest: Record<string, JsonValue> = {};
  let empty = true;
  for (const key of Object.keys(patch.mergePatch)) {
    if (key === "status") continue;
    empty = false; // (a key holding `undefined` still makes a part, an empty one, as before)
    const value = patch.mergePatch[key];
    if (value !== undefined) setOwn(rest, key, deepCopy(value));
  }
  return empty ? undefined : rest;
};

/**
 * Whether a JSON-patch operation targets `status` (and goes to the status subresource).
 *
 * @example
 * isStatusOp({ op: "add", path: "/status/phase", value: "Ready" }) // true
 */
export const isStatusOp = (op: JsonPatch.JsonPatchOp): boolean =>
  op.path === "/status" || op.path.startsWith("/status/");

/**
 * The `test` operation that makes a JSON patch fail (422) unless the object is still at the
 * reference's resource version.
 *
 * @example
 * guard({ metadata: { resourceVersion: "7" } }) // { op: "test", path: "/metadata/resourceVersion", value: "7" }
 */
export const guard = (reference: RawBody): JsonPatch.JsonPatchOp =>
  ({
    op: "test",
    path: "/metadata/resourceVersion",
    value: Body.resourceVersion(reference) ?? null,
  }) as JsonPatch.JsonPatchOp;

/**
 * Applies a JSON merge patch the way Kopf applies its own patches to a body: `null` removes the
 * field and every parent emptied by that removal; objects merge key by key (an empty object
 * changes nothing); lists and scalars replace the value, creating missing parents. `body` is
 * never mutated; the result may share unchanged branches with it.
 *
 * @example
 * applyMergePatch({ spec: { a: 1, b: 2 } }, { spec: { a: null, c: 3 } }) // { spec: { b: 2, c: 3 } }
 */
export const applyMergePatch = <A extends object>(body: A, mergePatch: JsonObject): A => {
  const step = (acc: A, path: FieldPath.FieldPath, value: unknown): A => {
    if (value === null) return FieldPath.remove(acc, path);
    if (isObject(value)) {
      return Object.keys(value).reduce((inner, key) => step(inner, [...path, key], getOwn(value, key)), acc);
    }
    if (value === undefined) return acc;
    return FieldPath.set(acc, path, deepCopy(value));
  };
  return step(body, [], mergePatch);
};

/**
 * The body after the merge patch and then the operations (on a private copy; `body` is not
 * mutated). Fails when an operation throws.
 *
 * @example
 * applyTo({ spec: {} }, withOps(make({ spec: { a: 1 } }), (b) => { b.spec!.b = 2 })) // Result.succeed({ spec: { a: 1, b: 2 } })
 */
export const applyTo = (body: RawBody, patch: PatchValue): Result.Result<MutableBody, PatchError> =>
  runOps(deepCopy(applyMergePatch(body, patch.mergePatch)) as MutableBody, patch.ops);

/** Runs the operations on `target` in order (in place); fails when one throws. */
const runOps = (target: MutableBody, ops: ReadonlyArray<PatchFn>): Result.Result<MutableBody, PatchError> => {
  for (const [index, fn] of ops.entries()) {
    const ran = Result.try({
      try: () => fn(target),
      catch: (cause) =>
        new PatchError({
          reason: "FnFailed",
          message: `Patch function #${index} (${fn.name || "anonymous"}) failed: ${String(cause)}`,
          cause,
        }),
    });
    if (Result.isFailure(ran)) return Result.fail(ran.failure);
  }
  return Result.succeed(target);
};

/**
 * The JSON patch that the patch amounts to against `reference`: the merge patch and the
 * operations applied to a copy, diffed with the reference; with `guarded`, preceded by the
 * {@link guard} of the reference's resource version. An empty patch gives `[]`.
 *
 * @example
 * asJsonPatch(withOps(empty, (b) => { b.metadata!.finalizers = ["f"] }), body, { guarded: true })
 * // Result.succeed([{ op: "test", path: "/metadata/resourceVersion", value: "7" }, { op: "add", path: "/metadata/finalizers", value: ["f"] }])
 */
export const asJsonPatch = (
  patch: PatchValue,
  reference: RawBody,
  options: { readonly guarded?: boolean } = {},
): Result.Result<JsonPatch.JsonPatch, PatchError> => {
  if (isEmpty(patch)) return Result.succeed([]);
  const merged = applyMergePatch(reference, patch.mergePatch);
  // Operations that say which fields they change (the finalizer functions) get a copy of those
  // alone: the rest stays shared with the reference, and the diff finds it equal at once.
  const scope = scopeOf(patch.ops);
  const target = scope === undefined ? (deepCopy(merged) as MutableBody) : copyAlong(merged, scope);
  return Result.map(runOps(target, patch.ops), (target) => {
    const ops = JsonPatch.diff(reference, target);
    return options.guarded === true && ops.length > 0 ? [guard(reference), ...ops] : ops;
  });
};

/**
 * The cluster access behind `KopfRunner`'s helpers: get (absent is `undefined`), list, merge
 * patch and delete (absent is fine), as Effects on the runner's `KubeApi`.
 */
import { KubeApi } from "@kopf/client";
import type { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import type { Body } from "../Resources.ts";

const isNotFound = (error: { readonly _tag: string; readonly reason?: unknown }) =>
  error._tag === "KubeApiError" && error.reason === "NotFound";

/** The object, or `undefined` if it does not exist. */
export const get = (resource: Resource.Resource, name: string, namespace?: string) =>
  Effect.flatMap(KubeApi, (api) => api.get(resource, { name, namespace })).pipe(
    Effect.map((body): Body | undefined => body as Body),
    Effect.catchIf(isNotFound, () => Effect.succeed(undefined)),
  );

/** The objects of a resource in a namespace (all namespaces when absent). */
export const list = (resource: Resource.Resource, namespace?: string) =>
  Effect.flatMap(KubeApi, (api) => api.list(resource, { namespace })).pipe(
    Effect.map((list) => list.items as ReadonlyArray<Body>),
  );

/** Merge-patches an object; the patched object. */
export const patch = (
  resource: Resource.Resource,
  name: string,
  namespace: string | undefined,
  body: unknown,
) =>
  Effect.flatMap(KubeApi, (api) => api.patch(resource, { name, namespace }, { type: "merge", body })).pipe(
    Effect.map((patched) => patched as Body),
  );

/** Deletes an object; no error if it is gone. */
export const remove = (resource: Resource.Resource, name: string, namespace?: string) =>
  Effect.flatMap(KubeApi, (api) => api.delete(resource, { name, namespace })).pipe(
    Effect.asVoid,
    Effect.catchIf(isNotFound, () => Effect.void),
  );

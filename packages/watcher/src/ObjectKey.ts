/**
 * The keys that demultiplex a watch stream into per-object queues (docs/behaviour/watching.md#queues): events of one
 * object are processed in order by one worker, different objects concurrently. An object is
 * identified by its `metadata.uid`; objects without one (e.g. `v1/ComponentStatus`) get a
 * synthetic key from kind, apiVersion, name, namespace and creationTimestamp, each `-` when
 * missing, joined by `//` (Kopf's `get_uid`). Keys are process-local and never persisted.
 */
import type { RawBody } from "@kopf/structs";

/**
 * The per-object key of a body within one watched resource.
 *
 * @example
 * ObjectKey.of({ metadata: { uid: "1234", name: "x" } }) // "1234"
 * ObjectKey.of({ kind: "ComponentStatus", apiVersion: "v1", metadata: { name: "etcd-0" } })
 * // "ComponentStatus//v1//etcd-0//-//-"
 */
export const of = (body: RawBody): string => {
  const meta = body.metadata;
  if (meta !== undefined && Object.hasOwn(meta, "uid") && typeof meta.uid === "string") return meta.uid;
  const parts = [body.kind, body.apiVersion, meta?.name, meta?.namespace, meta?.creationTimestamp];
  return parts.map((part) => (typeof part === "string" && part !== "" ? part : "-")).join("//");
};

/**
 * The key of an object across resources: the same uid under two resources (e.g. two versions of
 * one kind) names two queues, as Kopf keys its queues by `(resource, uid)`.
 *
 * @example
 * ObjectKey.scoped("kopfexamples.v1.kopf.dev", body) // "kopfexamples.v1.kopf.dev/1234"
 */
export const scoped = (resource: string, body: RawBody): string => `${resource}/${of(body)}`;

/** The resourceVersion of a body, if any (what the worker compares for consistency, docs/behaviour/watching.md#consistency). */
export const versionOf = (body: RawBody): string | undefined => {
  const version = body.metadata?.resourceVersion;
  return typeof version === "string" ? version : undefined;
};

/**
 * Object and owner references (Kopf's `build_object_reference`, `build_owner_reference`,
 * `append_owner_reference`, `remove_owner_reference`, docs/behaviour/hierarchies.md). The owner here is explicit;
 * see `Kit.bind` for the variants that default to the body of the handler being executed.
 */
import type { KubeObject } from "@kopf/structs";
import { metadataOf, walk } from "./internal/walk.ts";

/** A reference as built by this module (fields may be absent, as for Nodes without apiVersion). */
export type Reference = { [key: string]: string | boolean };

/**
 * `{apiVersion, kind, name, uid, namespace}` of `body`, falsy fields dropped (for events).
 *
 * @example
 * ```ts
 * References.buildObjectReference({ kind: "Node", metadata: { name: "n1" } }) // { kind: "Node", name: "n1" }
 * ```
 */
export const buildObjectReference = (body: KubeObject): Reference => {
  const ref: { [key: string]: unknown } = {
    apiVersion: body.apiVersion,
    kind: body.kind,
    name: body.metadata?.name,
    uid: body.metadata?.uid,
    namespace: body.metadata?.namespace,
  };
  return Object.fromEntries(Object.entries(ref).filter(([, value]) => Boolean(value))) as Reference;
};

/** Options of owner references; both default to `true`, `null` drops the field. */
export interface OwnerReferenceOptions {
  readonly controller?: boolean | null;
  readonly blockOwnerDeletion?: boolean | null;
}

/**
 * An owner reference to `body` (no namespace: owner references have none); null/absent fields
 * are dropped.
 *
 * @example
 * ```ts
 * References.buildOwnerReference(parent)
 * // { controller: true, blockOwnerDeletion: true, apiVersion: "kopf.dev/v1", kind: "KopfExample", name, uid }
 * ```
 */
export const buildOwnerReference = (body: KubeObject, options: OwnerReferenceOptions = {}): Reference => {
  const ref: { [key: string]: unknown } = {
    controller: options.controller === undefined ? true : options.controller,
    blockOwnerDeletion: options.blockOwnerDeletion === undefined ? true : options.blockOwnerDeletion,
    apiVersion: body.apiVersion,
    kind: body.kind,
    name: body.metadata?.name,
    uid: body.metadata?.uid,
  };
  return Object.fromEntries(
    Object.entries(ref).filter(([, value]) => value !== undefined && value !== null),
  ) as Reference;
};

const refsOf = (obj: { [key: string]: any }): Array<{ [key: string]: unknown }> => {
  const meta = metadataOf(obj);
  if (!Array.isArray(meta.ownerReferences)) meta.ownerReferences = [];
  return meta.ownerReferences;
};

/**
 * Appends an owner reference to `owner` to every object, unless one with the owner's uid is
 * already there. Mutates the objects in place.
 *
 * @example
 * ```ts
 * References.appendOwnerReference([pod, [service]], parent)
 * ```
 */
export const appendOwnerReference = (
  objs: unknown,
  owner: KubeObject,
  options: OwnerReferenceOptions = {},
): void => {
  const ref = buildOwnerReference(owner, options);
  for (const obj of walk(objs)) {
    const refs = refsOf(obj);
    if (!refs.some((existing) => existing?.uid === ref.uid)) refs.push({ ...ref });
  }
};

/**
 * Removes the owner references with the owner's uid from every object (in place).
 *
 * @example
 * ```ts
 * References.removeOwnerReference(pod, parent)
 * ```
 */
export const removeOwnerReference = (objs: unknown, owner: KubeObject): void => {
  const uid = buildOwnerReference(owner).uid;
  for (const obj of walk(objs)) {
    const refs = refsOf(obj);
    const kept = refs.filter((existing) => existing?.uid !== uid);
    if (kept.length !== refs.length) refs.splice(0, refs.length, ...kept);
  }
};

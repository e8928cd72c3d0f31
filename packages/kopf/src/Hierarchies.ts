/**
 * The hierarchies kit (Kopf's `kopf.adopt`, `kopf.label`, `kopf.append_owner_reference`, ...,
 * spec §14): marking children about to be created as owned by a parent — owner references,
 * names derived from the parent's, the parent's namespace and labels. The functions accept one
 * object or (nested) arrays of objects and change them in place, as Kopf's do.
 *
 * Unlike Kopf, the owner is always passed explicitly (the handler's `body`): handlers receive it
 * in their context, and an explicit argument keeps these functions pure.
 */
import type { RawBody } from "@kopf/structs";
import { Data } from "effect";

/**
 * A misuse of the hierarchies kit (thrown at once, like Kopf's `TypeError`/`LookupError`):
 * something other than objects was given, or no name to derive children's names from.
 */
export class HierarchyError extends Data.TaggedError("HierarchyError")<{
  readonly reason: "NotAnObject" | "NoName";
  readonly message: string;
}> {}

/** A mutable object, as built for a child about to be created. */
export type Obj = { [key: string]: any };

/** One object or nested arrays of them. */
export type Objs = Obj | ReadonlyArray<Objs>;

const each = (objs: Objs, fn: (obj: Obj) => void): void => {
  if (Array.isArray(objs)) for (const obj of objs) each(obj as Objs, fn);
  else if (typeof objs === "object" && objs !== null) fn(objs as Obj);
  else
    throw new HierarchyError({
      reason: "NotAnObject",
      message: `Only objects (or arrays of them) can be adopted, labelled or named; got ${typeof objs}.`,
    });
};

const metadataOf = (obj: Obj): Obj => {
  if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
  return obj.metadata as Obj;
};

/** `{apiVersion, kind, name, uid, namespace}` of an object, empty fields dropped (Kopf's `build_object_reference`). */
export const buildObjectReference = (body: RawBody): Obj => {
  const ref: Obj = {
    apiVersion: body.apiVersion,
    kind: body.kind,
    name: body.metadata?.name,
    uid: body.metadata?.uid,
    namespace: body.metadata?.namespace,
  };
  for (const key of Object.keys(ref)) if (!ref[key]) delete ref[key];
  return ref;
};

/** Options of owner references. */
export interface OwnerOptions {
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/**
 * An owner reference to `body` (Kopf's `build_owner_reference`): controller and
 * block-owner-deletion by default; no namespace (owner references have none).
 *
 * @example
 * kopf.buildOwnerReference(body) // { controller: true, blockOwnerDeletion: true, apiVersion, kind, name, uid }
 */
export const buildOwnerReference = (body: RawBody, options: OwnerOptions = {}): Obj => {
  const ref: Obj = {
    controller: options.controller ?? true,
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
    apiVersion: body.apiVersion,
    kind: body.kind,
    name: body.metadata?.name,
    uid: body.metadata?.uid,
  };
  for (const key of Object.keys(ref)) if (ref[key] === undefined || ref[key] === null) delete ref[key];
  return ref;
};

/** Adds an owner reference to `owner` unless one with its uid is there. */
export const appendOwnerReference = (objs: Objs, owner: RawBody, options: OwnerOptions = {}): void => {
  const ref = buildOwnerReference(owner, options);
  each(objs, (obj) => {
    const meta = metadataOf(obj);
    const refs: Array<Obj> = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
    if (!refs.some((r) => r.uid === ref.uid)) refs.push(ref);
    meta.ownerReferences = refs;
  });
};

/** Removes the owner references to `owner` (by uid). */
export const removeOwnerReference = (objs: Objs, owner: RawBody): void => {
  const uid = owner.metadata?.uid;
  each(objs, (obj) => {
    const meta = metadataOf(obj);
    if (Array.isArray(meta.ownerReferences))
      meta.ownerReferences = meta.ownerReferences.filter((r: Obj) => r.uid !== uid);
  });
};

/** Options of {@link label}. */
export interface LabelOptions {
  /** Overwrite existing labels (default: only missing ones are set). */
  readonly forced?: boolean;
  /** Also label these sub-objects' `metadata.labels` (e.g. `spec.template`); missing paths are skipped. */
  readonly nested?: string | ReadonlyArray<string>;
}

const setLabels = (meta: Obj, labels: Readonly<Record<string, string>>, forced: boolean) => {
  const current: Obj = typeof meta.labels === "object" && meta.labels !== null ? meta.labels : {};
  for (const [key, value] of Object.entries(labels)) if (forced || !(key in current)) current[key] = value;
  meta.labels = current;
};

/**
 * Sets labels on the objects (Kopf's `kopf.label`).
 *
 * @example
 * kopf.label(pod, { application: "kopf-example-10" })
 * kopf.label(deployment, owner.metadata.labels, { nested: "spec.template" })
 */
export const label = (
  objs: Objs,
  labels: Readonly<Record<string, string>>,
  options: LabelOptions = {},
): void => {
  const nested = typeof options.nested === "string" ? [options.nested] : (options.nested ?? []);
  each(objs, (obj) => {
    setLabels(metadataOf(obj), labels, options.forced === true);
    for (const path of nested) {
      let target: unknown = obj;
      for (const part of path.split("."))
        target = typeof target === "object" && target !== null ? (target as Obj)[part] : undefined;
      if (typeof target === "object" && target !== null)
        setLabels(metadataOf(target as Obj), labels, options.forced === true);
    }
  });
};

/** Options of {@link harmonizeNaming}. */
export interface NamingOptions {
  readonly forced?: boolean;
  /** Use the exact name instead of a `generateName` prefix. */
  readonly strict?: boolean;
}

/**
 * Names the objects after `name` unless they have a name or generateName (Kopf's
 * `harmonize_naming`): `generateName: "<name>-"`, or exactly `name` when strict.
 */
export const harmonizeNaming = (objs: Objs, name: string | undefined, options: NamingOptions = {}): void => {
  if (!name) {
    throw new HierarchyError({
      reason: "NoName",
      message: "Name must be set explicitly: couldn't find it automatically.",
    });
  }
  each(objs, (obj) => {
    const meta = metadataOf(obj);
    if (options.forced !== true && (meta.name || meta.generateName)) return;
    if (options.strict === true) {
      meta.name = name;
      delete meta.generateName;
    } else {
      meta.generateName = `${name}-`;
      delete meta.name;
    }
  });
};

/** Puts the objects into `namespace` unless they have one (or always, if forced). */
export const adjustNamespace = (
  objs: Objs,
  namespace: string | null | undefined,
  options: { readonly forced?: boolean } = {},
): void => {
  each(objs, (obj) => {
    const meta = metadataOf(obj);
    if (options.forced === true || meta.namespace === undefined || meta.namespace === null)
      meta.namespace = namespace ?? null;
  });
};

/** Options of {@link adopt}. */
export interface AdoptOptions extends NamingOptions {
  readonly nested?: string | ReadonlyArray<string>;
}

/**
 * Makes the objects children of `owner` (Kopf's `kopf.adopt`): an owner reference, a name
 * derived from the owner's, the owner's namespace and labels.
 *
 * @example
 * kopf.on.create("kopfexamples", ({ body }) => {
 *   const pod = { apiVersion: "v1", kind: "Pod", spec: { containers: [...] } }
 *   kopf.adopt(pod, body) // metadata: { ownerReferences: [...], generateName: "kopf-example-1-", namespace: "default", labels: {...} }
 * })
 */
export const adopt = (objs: Objs, owner: RawBody, options: AdoptOptions = {}): void => {
  appendOwnerReference(objs, owner);
  harmonizeNaming(objs, owner.metadata?.name, options);
  adjustNamespace(objs, owner.metadata?.namespace, {
    ...(options.forced !== undefined ? { forced: options.forced } : {}),
  });
  label(objs, owner.metadata?.labels ?? {}, {
    ...(options.forced !== undefined ? { forced: options.forced } : {}),
    ...(options.nested !== undefined ? { nested: options.nested } : {}),
  });
};

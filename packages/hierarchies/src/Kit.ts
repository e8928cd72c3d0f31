/**
 * The hierarchies kit with Kopf's defaults (docs/behaviour/hierarchies.md): every function takes the owner (or the
 * name, namespace or labels derived from it) optionally; when omitted, it is the body of the
 * handler currently being executed, as found by an {@link OwnerSource}. This package is pure and
 * knows no handler context: the `kopf` facade binds the kit to the runtime's ambient handler
 * (`Kit.bind(() => currentBody())`); the unbound kit exported by the package index has no
 * current handler, so omitting the owner there throws `HierarchyError("NoOwner")` with Kopf's
 * message.
 *
 * `adopt` = owner reference + naming + namespace + the owner's labels, in that order.
 */
import type { KubeObject } from "@kopf/structs";
import { HierarchyError } from "./HierarchyError.ts";
import * as Labels from "./Labels.ts";
import * as Namespacing from "./Namespacing.ts";
import * as Naming from "./Naming.ts";
import * as References from "./References.ts";

/** Where the owner comes from when not given: the body of the current handler, if any. */
export type OwnerSource = () => KubeObject | undefined;

/** No current handler: the owner must always be given. */
export const noOwner: OwnerSource = () => undefined;

/** Options of {@link Kit.adopt}. */
export interface AdoptOptions extends Naming.NamingOptions {
  /** Also label these sub-objects (`"spec.template"`, …). */
  readonly nested?: string | Iterable<string>;
}

/** The kit's functions, with the owner defaulting to the current handler's body. */
export interface Kit {
  readonly buildObjectReference: (body?: KubeObject) => References.Reference;
  readonly buildOwnerReference: (
    body?: KubeObject,
    options?: References.OwnerReferenceOptions,
  ) => References.Reference;
  readonly appendOwnerReference: (
    objs: unknown,
    owner?: KubeObject,
    options?: References.OwnerReferenceOptions,
  ) => void;
  readonly removeOwnerReference: (objs: unknown, owner?: KubeObject) => void;
  /** Labels default to the owner's labels. */
  readonly label: (
    objs: unknown,
    labels?: Readonly<Record<string, string | null>>,
    options?: Labels.LabelOptions,
  ) => void;
  /** The name defaults to the owner's name; `null` (or an owner without a name) throws. */
  readonly harmonizeNaming: (objs: unknown, name?: string | null, options?: Naming.NamingOptions) => void;
  /** The namespace defaults to the owner's (null for cluster-scoped owners). */
  readonly adjustNamespace: (
    objs: unknown,
    namespace?: string | null,
    options?: Namespacing.NamespaceOptions,
  ) => void;
  readonly adopt: (objs: unknown, owner?: KubeObject, options?: AdoptOptions) => void;
}

/**
 * The kit bound to a source of the current owner.
 *
 * @example
 * ```ts
 * const kit = Kit.bind(() => currentHandlerBody())
 * kit.adopt(childPod) // owned by, named after, in the namespace of, and labelled as the handler's object
 * ```
 */
export const bind = (source: OwnerSource): Kit => {
  const ownerOf = (owner: KubeObject | undefined): KubeObject => {
    const found = owner ?? source();
    if (found === undefined) {
      throw new HierarchyError({
        reason: "NoOwner",
        message: "Owner must be set explicitly, since running outside of a handler.",
      });
    }
    return found;
  };
  const adopt = (objs: unknown, owner?: KubeObject, options: AdoptOptions = {}): void => {
    const real = ownerOf(owner);
    const forced = options.forced === true;
    References.appendOwnerReference(objs, real);
    Naming.harmonizeNaming(objs, real.metadata?.name ?? null, { forced, strict: options.strict === true });
    Namespacing.adjustNamespace(objs, real.metadata?.namespace ?? null, { forced });
    Labels.label(objs, real.metadata?.labels ?? {}, {
      forced,
      ...(options.nested === undefined ? {} : { nested: options.nested }),
    });
  };
  return {
    buildObjectReference: (body) => References.buildObjectReference(ownerOf(body)),
    buildOwnerReference: (body, options) => References.buildOwnerReference(ownerOf(body), options),
    appendOwnerReference: (objs, owner, options) =>
      References.appendOwnerReference(objs, ownerOf(owner), options),
    removeOwnerReference: (objs, owner) => References.removeOwnerReference(objs, ownerOf(owner)),
    label: (objs, labels, options) =>
      Labels.label(objs, labels ?? ownerOf(undefined).metadata?.labels ?? {}, options),
    harmonizeNaming: (objs, name, options) =>
      Naming.harmonizeNaming(
        objs,
        name === undefined ? (ownerOf(undefined).metadata?.name ?? null) : name,
        options,
      ),
    adjustNamespace: (objs, namespace, options) =>
      Namespacing.adjustNamespace(
        objs,
        namespace === undefined ? (ownerOf(undefined).metadata?.namespace ?? null) : namespace,
        options,
      ),
    adopt,
  };
};

/** The kit without a current handler (owners, names, namespaces and labels passed explicitly). */
export const explicit: Kit = bind(noOwner);

/** Kopf's `adopt` with an explicit owner: owner reference, naming, namespace and labels. */
export const adopt = explicit.adopt;
/** Kopf's `label` (labels given explicitly). */
export const label = explicit.label;
/** Kopf's `harmonize_naming` (name given explicitly). */
export const harmonizeNaming = explicit.harmonizeNaming;
/** Kopf's `adjust_namespace` (namespace given explicitly). */
export const adjustNamespace = explicit.adjustNamespace;
/** Kopf's `append_owner_reference`. */
export const appendOwnerReference = explicit.appendOwnerReference;
/** Kopf's `remove_owner_reference`. */
export const removeOwnerReference = explicit.removeOwnerReference;
/** Kopf's `build_object_reference`. */
export const buildObjectReference = explicit.buildObjectReference;
/** Kopf's `build_owner_reference`. */
export const buildOwnerReference = explicit.buildOwnerReference;

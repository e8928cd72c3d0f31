/**
 * The hierarchies kit as Kopf offers it (docs/behaviour/hierarchies.md): `kopf.adopt`, `kopf.label`,
 * `kopf.harmonizeNaming`, `kopf.adjustNamespace` and the owner-reference functions, with the
 * owner defaulting to the body of the resource handler being executed (of any kind) (the runtime's
 * ambient binding, which follows the handler across `await`s). Outside a handler, omitting the
 * owner throws `HierarchyError` with Kopf's message.
 */
import { Kit } from "@kopf/hierarchies";
import { AmbientHandlers } from "@kopf/runtime";

/**
 * The kit bound to the running handler.
 *
 * @example
 * ```ts
 * kopf.on.create("kopfexamples", async ({ spec }) => {
 *   const pod = { apiVersion: "v1", kind: "Pod", spec: { containers: [] } }
 *   kopf.adopt(pod) // owned by, named after, in the namespace of, labelled as the kopfexample
 * })
 * ```
 */
export const kit: Kit.Kit = Kit.bind(() => AmbientHandlers.currentBody());

/** Owner reference, name, namespace and labels of the owner (default: the handler's object). */
export const adopt = kit.adopt;
/** Labels the objects (default: the owner's labels). */
export const label = kit.label;
/** Names the objects after the owner (a prefix with `generateName`, or the name itself). */
export const harmonizeNaming = kit.harmonizeNaming;
/** Puts the objects into the owner's namespace. */
export const adjustNamespace = kit.adjustNamespace;
/** Adds the owner reference of the owner to the objects. */
export const appendOwnerReference = kit.appendOwnerReference;
/** Removes the owner reference of the owner from the objects. */
export const removeOwnerReference = kit.removeOwnerReference;
/** The object reference of a body (default: the handler's object). */
export const buildObjectReference = kit.buildObjectReference;
/** The owner reference of a body (default: the handler's object). */
export const buildOwnerReference = kit.buildOwnerReference;

/**
 * kubernetes-fluent-client model classes as handler resources: `kopf.on.create(kind.Pod, ...)`.
 * KFC keeps a process-wide map from model class names to group/version/kind (its built-in kinds
 * and those added with `RegisterKind`); this resolves a class through that map to the resource
 * names of a selector, so the pure registry never imports KFC.
 *
 * Only the map module (`dist/kinds.js`) is imported, not KFC's entry point, so operators that do
 * not use KFC do not load its HTTP client; it is the very module KFC's `RegisterKind` writes to.
 *
 * KFC is an optional peer dependency of `kopf`: the map must be the one instance the operator's
 * own KFC writes to, and operators without KFC install none of it. Without KFC installed, no
 * value is a KFC model class, so nothing resolves.
 */
import { ResourceSpec } from "@kopf/registry";

type KfcKinds = { readonly modelToGroupVersionKind: (key: string) => unknown };

const isModuleNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && error.code === "ERR_MODULE_NOT_FOUND";

const kfcKinds: KfcKinds | undefined = await import("kubernetes-fluent-client/dist/kinds.js").catch(
  (error: unknown) => {
    if (isModuleNotFound(error)) return undefined;
    throw error;
  },
);

/**
 * The resource names of a KFC model class (`{ group, version, kind }`), or `undefined` when the
 * value is not a class known to KFC.
 *
 * @example
 * import { kind } from "kubernetes-fluent-client"
 * resolveModel(kind.Pod) // { group: "", version: "v1", kind: "Pod" }
 */
export const resolveModel: ResourceSpec.ModelResolver = (model) => {
  if (typeof model !== "function" || !ResourceSpec.isModelClass(model) || model.name === "") return undefined;
  if (kfcKinds === undefined) return undefined;
  const gvk: unknown = kfcKinds.modelToGroupVersionKind(model.name);
  if (typeof gvk !== "object" || gvk === null) return undefined;
  const { group, version, kind } = gvk as { group?: unknown; version?: unknown; kind?: unknown };
  if (typeof kind !== "string" || typeof group !== "string") return undefined;
  return typeof version === "string" && version !== "" ? { group, version, kind } : { group, kind };
};

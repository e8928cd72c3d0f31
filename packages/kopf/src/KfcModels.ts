/**
 * kubernetes-fluent-client model classes as handler resources: `kopf.on.create(kind.Pod, ...)`.
 * KFC keeps a process-wide map from model class names to group/version/kind (its built-in kinds
 * and those added with `RegisterKind`); this resolves a class through that map to the resource
 * names of a selector, so the pure registry never imports KFC.
 *
 * Only the map module (`dist/kinds.js`) is imported, not KFC's entry point, so operators that do
 * not use KFC do not load its HTTP client; it is the very module KFC's `RegisterKind` writes to.
 */
import { ResourceSpec } from "@kopf/registry";
import { modelToGroupVersionKind } from "kubernetes-fluent-client/dist/kinds.js";

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
  const gvk: unknown = modelToGroupVersionKind(model.name);
  if (typeof gvk !== "object" || gvk === null) return undefined;
  const { group, version, kind } = gvk as { group?: unknown; version?: unknown; kind?: unknown };
  if (typeof kind !== "string" || typeof group !== "string") return undefined;
  return typeof version === "string" && version !== "" ? { group, version, kind } : { group, kind };
};

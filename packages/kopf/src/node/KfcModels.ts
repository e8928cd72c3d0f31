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
 * own KFC writes to, and operators without KFC install none of it. The map is required (Node's
 * `require` of an ES module, synchronous as registration is) on the first class seen, so
 * operators that never pass a class never load it, and without KFC installed nothing resolves.
 * Edge code: `node:module`.
 */
import { createRequire } from "node:module";
import { ResourceSpec } from "@kopf/registry";

interface KfcKinds {
  readonly modelToGroupVersionKind: (key: string) => unknown;
}

const isModuleNotFound = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  (error.code === "MODULE_NOT_FOUND" || error.code === "ERR_MODULE_NOT_FOUND");

let kinds: KfcKinds | null | undefined;

/** KFC's kinds map, or `null` when KFC is not installed. */
const kfcKinds = (): KfcKinds | null => {
  if (kinds === undefined) {
    try {
      kinds = createRequire(import.meta.url)("kubernetes-fluent-client/dist/kinds.js") as KfcKinds;
    } catch (error) {
      if (!isModuleNotFound(error)) throw error;
      kinds = null;
    }
  }
  return kinds;
};

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
  const map = kfcKinds();
  if (map === null) return undefined;
  const gvk: unknown = map.modelToGroupVersionKind(model.name);
  if (typeof gvk !== "object" || gvk === null) return undefined;
  const { group, version, kind } = gvk as { group?: unknown; version?: unknown; kind?: unknown };
  if (typeof kind !== "string" || typeof group !== "string") return undefined;
  return typeof version === "string" && version !== "" ? { group, version, kind } : { group, kind };
};

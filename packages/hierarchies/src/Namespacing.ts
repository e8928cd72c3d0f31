/**
 * Placing children in their parent's namespace (Kopf's `adjust_namespace`, docs/behaviour/hierarchies.md): objects
 * whose `metadata.namespace` is absent or null (or all, when `forced`) get the namespace.
 * As in Kopf, the namespace of a cluster-scoped owner is `null`, and that is what is set.
 */
import { metadataOf, walk } from "./internal/walk.ts";

/** Options of {@link adjustNamespace}. */
export interface NamespaceOptions {
  /** Overwrite namespaces the objects already have. */
  readonly forced?: boolean;
}

/**
 * Sets `metadata.namespace` (in place).
 *
 * @example
 * ```ts
 * Namespacing.adjustNamespace([pod, pvc], "ns1")
 * ```
 */
export const adjustNamespace = (
  objs: unknown,
  namespace: string | null | undefined,
  options: NamespaceOptions = {},
): void => {
  for (const obj of walk(objs)) {
    const meta = metadataOf(obj);
    if (options.forced === true || meta.namespace === undefined || meta.namespace === null) {
      meta.namespace = namespace ?? null;
    }
  }
};

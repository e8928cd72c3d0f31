/**
 * Naming of children after their parent (Kopf's `harmonize_naming`, docs/behaviour/hierarchies.md): objects with
 * neither `name` nor `generateName` (or all, when `forced`) get `generateName: "<name>-"`, so
 * that the API server adds a unique suffix, or exactly `name` when `strict`.
 */
import { HierarchyError } from "./HierarchyError.ts";
import { metadataOf, walk } from "./internal/walk.ts";

/** Options of {@link harmonizeNaming}. */
export interface NamingOptions {
  /** Rename objects that already have a name or generateName. */
  readonly forced?: boolean;
  /** Use the name as it is instead of as a `generateName` prefix. */
  readonly strict?: boolean;
}

const has = (meta: { [key: string]: unknown }, key: string): boolean =>
  Object.hasOwn(meta, key) && meta[key] !== undefined;

/**
 * Names the objects after `name` (in place). A null or empty name throws
 * `HierarchyError("NoName")`.
 *
 * @example
 * ```ts
 * Naming.harmonizeNaming(pod, "kopf-example-1") // pod.metadata.generateName === "kopf-example-1-"
 * Naming.harmonizeNaming(svc, "kopf-example-1", { strict: true }) // svc.metadata.name === "kopf-example-1"
 * ```
 */
export const harmonizeNaming = (
  objs: unknown,
  name: string | null | undefined,
  options: NamingOptions = {},
): void => {
  if (name === null || name === undefined || name === "") {
    throw new HierarchyError({
      reason: "NoName",
      message: "Name must be set explicitly: couldn't find it automatically.",
    });
  }
  for (const obj of walk(objs)) {
    const meta = metadataOf(obj);
    const noname = !has(meta, "name") && !has(meta, "generateName");
    if (options.forced !== true && !noname) continue;
    if (options.strict === true) {
      meta.name = name;
      delete meta.generateName;
    } else {
      meta.generateName = `${name}-`;
      delete meta.name;
    }
  }
};

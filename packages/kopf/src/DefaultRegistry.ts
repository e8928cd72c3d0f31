/**
 * The process-wide default registry, used only by the facade's `kopf.on.*`, `kopf.daemon`,
 * `kopf.timer` and `kopf.index` (Kopf's `get_default_registry`/`set_default_registry`). The core
 * never reads it: the runtime receives a registry explicitly.
 */
import * as Registry from "./Registry.ts";

let current: Registry.Registry | undefined;

/**
 * The default registry, created empty on first use.
 *
 * @example
 * kopf.on.create("kopfexamples", createFn)
 * kopf.getDefaultRegistry().changing.length // 1
 */
export const getDefaultRegistry = (): Registry.Registry => {
  current ??= Registry.make();
  return current;
};

/**
 * Replaces the default registry; later `kopf.on.*` calls register there.
 *
 * @example
 * kopf.setDefaultRegistry(kopf.Registry.make()) // e.g. a clean registry per test
 */
export const setDefaultRegistry = (registry: Registry.Registry): void => {
  current = registry;
};

/**
 * The process-wide default lifecycle of the facade (Kopf's `get_default_lifecycle` /
 * `set_default_lifecycle`), for running operators that are not given a lifecycle explicitly.
 * Unlike Kopf, setting it logs nothing: the facade has no logger at this point.
 */
import { type Lifecycle, Lifecycles } from "@kopf/registry";

let current: Lifecycle = Lifecycles.defaultLifecycle;

/**
 * The default lifecycle (`asap` unless set).
 *
 * @example
 * kopf.getDefaultLifecycle() === kopf.lifecycles.asap // true
 */
export const getDefaultLifecycle = (): Lifecycle => current;

/**
 * Sets the default lifecycle; `undefined` restores `asap`.
 *
 * @example
 * kopf.setDefaultLifecycle(kopf.lifecycles.all_at_once)
 */
export const setDefaultLifecycle = (lifecycle: Lifecycle | undefined): void => {
  current = lifecycle ?? Lifecycles.defaultLifecycle;
};

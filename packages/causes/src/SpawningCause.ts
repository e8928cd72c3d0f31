/**
 * The spawning cause: an object to spawn (or keep, or stop) daemons and timers for (Kopf's
 * `detect_spawning_cause`). `reset` says whether the object's essence changed in this event:
 * only essential changes reset the idling countdown of timers with `idle`, not every event.
 */
import type { HandlerCause } from "@kopf/registry";
import type { Diff, RawBody } from "@kopf/structs";
import type { ResourceContext } from "./ResourceCause.ts";

/** The cause daemons and timers are matched with, plus the idle-reset flag. */
export interface SpawningCause extends HandlerCause.SpawningCause {
  /** The essence diff of this event is non-empty. */
  readonly reset: boolean;
}

/**
 * The spawning cause of an object, given its body and the essence diff of this event.
 *
 * @example
 * ```ts
 * import { SpawningCause } from "@kopf/causes";
 * declare const context: ResourceCause.ResourceContext;
 * SpawningCause.make({ body: {}, diff: [] }, context).reset; // false
 * ```
 */
export const make = (
  inputs: { readonly body: RawBody; readonly diff: Diff.Diff },
  context: ResourceContext,
): SpawningCause => ({
  ...context,
  _tag: "SpawningCause",
  body: inputs.body,
  reset: inputs.diff.length > 0,
});

/**
 * Which daemons and timers of one object a processing cycle spawns or stops, as values (pure;
 * docs/behaviour/daemons-timers.md): the engine performs the actions in order.
 *
 * - The object is gone (a `DELETED` event): forget it and stop every runner in the background
 *   (single-shot: no later cycle would continue a multi-cycle stop).
 * - The object is being deleted: stop every runner with `resource-deleted`.
 * - Otherwise: stop the runners whose handler no longer matches (`filters-mismatch`), spawn the
 *   matching handlers that have no runner (not those stopped forever), and, if the operator is
 *   paused at that moment, stop them all with `operator-pausing`.
 */
import { type DaemonStoppingReason, type HandlerCause, Matching, type SpawningHandler } from "@kopf/registry";

/** What the decision reads. */
export interface Input {
  /** A `DELETED` event: the object is gone from the cluster. */
  readonly gone: boolean;
  /** The object has a deletion timestamp. */
  readonly deleting: boolean;
  /** The daemons and timers of the resource kind. */
  readonly handlers: ReadonlyArray<SpawningHandler>;
  readonly cause: HandlerCause.SpawningCause;
  /** Handlers that finished on their own for this object: never spawned again. */
  readonly forever: ReadonlySet<string>;
  /** The ids of the object's runners, in the order they were spawned. */
  readonly running: ReadonlyArray<string>;
}

/** One thing to do. */
export type Action =
  /** Forget the object's record. */
  | { readonly _tag: "Forget" }
  /** Stop these runners (multi-cycle, the delays kept), or single-shot in the background. */
  | {
      readonly _tag: "Stop";
      readonly ids: ReadonlyArray<string>;
      readonly reason: DaemonStoppingReason;
      readonly background: boolean;
    }
  | { readonly _tag: "Spawn"; readonly handler: SpawningHandler }
  /** Stop these runners with `operator-pausing` if the operator is paused when this is reached. */
  | { readonly _tag: "StopIfPaused"; readonly ids: ReadonlyArray<string> };

/**
 * The actions of one cycle, in order.
 *
 * @example
 * decide({ gone: false, deleting: true, handlers, cause, forever: new Set(), running: ["d1"] })
 * // [{ _tag: "Stop", ids: ["d1"], reason: "resource-deleted", background: false }]
 */
export const decide = (input: Input): ReadonlyArray<Action> => {
  const { running } = input;
  if (input.gone)
    return [{ _tag: "Forget" }, { _tag: "Stop", ids: running, reason: "resource-deleted", background: true }];
  if (input.deleting) return [{ _tag: "Stop", ids: running, reason: "resource-deleted", background: false }];
  const matching = Matching.spawningHandlers(input.handlers, input.cause, input.forever);
  const matched = new Set(matching.map((h) => h.id));
  const spawned = new Set(running);
  const missing = matching.filter((h) => !spawned.has(h.id));
  return [
    {
      _tag: "Stop",
      ids: running.filter((id) => !matched.has(id)),
      reason: "filters-mismatch",
      background: false,
    },
    ...missing.map((handler): Action => ({ _tag: "Spawn", handler })),
    { _tag: "StopIfPaused", ids: [...running, ...missing.map((h) => h.id)] },
  ];
};

/**
 * Outcomes: the in-memory result of one attempt of one handler (success, temporary or
 * permanent failure, the delay before the next attempt, the returned value), and the delivery
 * of handler results into the object's status (docs/behaviour/handler-context.md#results).
 */
import { Json } from "@kopf/structs";
import { ensure, isMutableObject, lookup } from "./internal/dicts.ts";
import type { PatchLike } from "./internal/progressStorageApi.ts";

/** What the state needs of a handler error: its message (Python's `str(exception)`). */
export interface OutcomeError {
  readonly message: string;
}

/**
 * The outcome of one handler attempt.
 *
 * - `final`: no more attempts (a success or a permanent failure);
 * - `delay`: seconds until the next attempt (temporary failures, retries);
 * - `result`: the handler's return value (ignored when `error` is set);
 * - `error`: the failure of this attempt, if any;
 * - `subrefs`: ids of the sub-handlers this handler used (any depth).
 */
export interface Outcome {
  readonly final: boolean;
  readonly delay?: number | null | undefined;
  readonly result?: unknown;
  readonly error?: OutcomeError | null | undefined;
  readonly subrefs?: ReadonlyArray<string> | undefined;
}

/**
 * A successful outcome with the handler's result.
 *
 * @example
 * ```ts
 * Outcome.success({ message: "done" }) // { final: true, result: { message: "done" } }
 * ```
 */
export const success = (result?: unknown, subrefs?: ReadonlyArray<string>): Outcome => ({
  final: true,
  result,
  ...(subrefs === undefined ? {} : { subrefs }),
});

/**
 * A failed attempt: permanent when `delay` is absent, retried after `delay` seconds otherwise.
 *
 * @example
 * ```ts
 * Outcome.failure({ message: "not ready" }, 10) // { final: false, delay: 10, error: ... }
 * ```
 */
export const failure = (error: OutcomeError, delay?: number | null): Outcome =>
  delay === undefined || delay === null ? { final: true, error } : { final: false, delay, error };

/**
 * Write the handlers' results into the patch's `status` (docs/behaviour/handler-context.md#results): a mapping is merged one
 * level deep into `status[handlerId]`; any other non-null value replaces `status[handlerId]`
 * (deep-copied). Results of failed attempts and `null`/`undefined` results are skipped.
 *
 * @example
 * ```ts
 * const patch = Patch.make(body)
 * Outcome.deliverResults(new Map([["fn", Outcome.success("ok")]]), patch)
 * // patch.toMergePatch() is { status: { fn: "ok" } }
 * ```
 */
export const deliverResults = (
  outcomes: ReadonlyMap<string, Outcome> | Readonly<Record<string, Outcome>>,
  patch: PatchLike,
): void => {
  const entries = outcomes instanceof Map ? [...outcomes.entries()] : Object.entries(outcomes);
  for (const [handlerId, outcome] of entries) {
    if (outcome.error !== undefined && outcome.error !== null) continue;
    if (outcome.result === undefined || outcome.result === null) continue;
    if (Json.isObject(outcome.result)) {
      if (!isMutableObject(lookup(patch, ["status", handlerId]))) {
        ensure(patch, ["status", handlerId], {});
      }
      for (const [key, value] of Object.entries(outcome.result)) {
        if (value !== undefined) ensure(patch, ["status", handlerId, key], value);
      }
    } else {
      ensure(patch, ["status", handlerId], Json.deepCopy(outcome.result));
    }
  }
};

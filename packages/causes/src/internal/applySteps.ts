/**
 * The end of a cycle in `CyclePlan` (Kopf's `apply`): send the patch, handle its outcome
 * deliberately (a conflict carries the patch functions to the next cycle; an invalid patch is an
 * error line and a Warning event, and is dropped), then sleep for the earliest delay (at most
 * {@link KEEPALIVE_SECONDS}, cut short by the object's next event) and touch the object to get a
 * new event; a sent patch brings its own event, so no sleep and no touch. The log lines are
 * Kopf's, word for word.
 */
import type { Instruction, Patched, Step } from "../CyclePlan.ts";
import { at, finish, type State } from "./cycleState.ts";

/** Kopf's `WAITING_KEEPALIVE_INTERVAL`: the longest sleep before a re-evaluating touch. */
export const KEEPALIVE_SECONDS = 600;

/** Reason of the Warning event posted about a patch the API server rejected as invalid. */
export const INVALID_PATCH_REASON = "InvalidPatch";

const seconds = (value: number): string => String(Math.round(value * 1000) / 1000);

const debug = (message: string): Instruction => ({ _tag: "Log", level: "Debug", message });

const earliest = (s: State): number | undefined => (s.delays.length > 0 ? Math.min(...s.delays) : undefined);

/** Send the patch (if it holds anything). */
export const patch = (s: State): Step => at(s, "Patch", { _tag: "Patch" });

/** What follows the patch's outcome. */
export const patched = (s: State, outcome: Patched): Step => {
  switch (outcome._tag) {
    case "NothingToPatch":
      return delayed(s);
    case "Gone":
      return carry({ ...s, sent: true, resourceVersion: undefined, pending: undefined });
    case "Applied":
      return delayed({ ...s, sent: true, resourceVersion: outcome.resourceVersion });
    case "Conflict":
      // Retried on the next cycle, against the newer body its event brings.
      return at(
        { ...s, sent: true, resourceVersion: outcome.resourceVersion, pending: outcome.pending },
        "LogConflict",
        debug("Patching met a newer object; the patch functions are retried on its next cycle."),
      );
    case "Invalid":
      // Kept local (not bridged into an event): the Warning event follows, once.
      return at(
        { ...s, sent: true, resourceVersion: outcome.resourceVersion, invalid: outcome.message },
        "LogInvalid",
        {
          _tag: "Log",
          level: "Error",
          local: true,
          message: `The API server rejected the patch as invalid and it is dropped: ${outcome.message}; the patch was ${outcome.payload}`,
        },
      );
  }
};

/** The Warning event about an invalid patch. */
export const postInvalid = (s: State): Step =>
  s.invalid === undefined
    ? delayed(s)
    : at(s, "PostInvalid", {
        _tag: "Post",
        event: {
          type: "Warning",
          reason: INVALID_PATCH_REASON,
          message: `The API server rejected a patch: ${s.invalid}`,
        },
      });

/** Sleep for the delayed handlers, or not. */
export const delayed = (s: State): Step => {
  const delay = earliest(s);
  if (delay !== undefined && delay > 0 && s.sent)
    return at(
      s,
      "LogThenCarry",
      debug(`Sleeping was skipped because of the patch, ${seconds(delay)} seconds left.`),
    );
  if (delay === undefined)
    return !s.sent && s.ran
      ? at(s, "LogThenCarry", debug("Handling cycle is finished, waiting for new changes."))
      : carry(s);
  if (delay > KEEPALIVE_SECONDS)
    return at(
      s,
      "LogSleep",
      debug(`Sleeping for ${seconds(delay)} (capped ${KEEPALIVE_SECONDS}) seconds for the delayed handlers.`),
    );
  if (delay > 0)
    return at(s, "LogSleep", debug(`Sleeping for ${seconds(delay)} seconds for the delayed handlers.`));
  return awake(s, { fully: true, left: 0 });
};

/** The sleep itself. */
export const sleep = (s: State): Step =>
  at(s, "Sleep", { _tag: "Sleep", seconds: Math.min(earliest(s) ?? 0, KEEPALIVE_SECONDS) });

/** After the sleep: touch the object if the sleep ran out, else the next event goes on. */
export const awake = (s: State, slept: { readonly fully: boolean; readonly left: number }): Step => {
  const delay = earliest(s) ?? 0;
  // A sent patch's own event brings the next cycle.
  if (s.sent && delay <= 0) return carry(s);
  if (!slept.fully)
    return at(
      s,
      "LogThenCarry",
      debug(`Sleeping was interrupted by new changes, ${seconds(slept.left)} seconds left.`),
    );
  return at(s, "Touch", { _tag: "Touch" });
};

/** Remember what was not applied, then finish. */
export const carry = (s: State): Step =>
  at(s, "Carry", { _tag: "Remember", change: { _tag: "Carry", pending: s.pending } });

/** The cycle applied its patch (or had nothing to apply). */
export const applied = (s: State): Step => finish(s, { _tag: "Applied", resourceVersion: s.resourceVersion });

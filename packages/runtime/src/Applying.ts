/**
 * The end of a processing cycle (Kopf's `apply`, docs/behaviour/processing.md#delays-and-the-touch-dummy): apply the cycle's patch (removing
 * the touch-dummy with it), then, for delayed handlers, sleep until the earliest delay (at most
 * 10 minutes), interruptibly by new events of the object, and "touch" the object afterwards —
 * patch a dummy annotation with the current time — to provoke a new watch event and thus a new
 * cycle. When a patch was applied, its own watch event re-triggers processing: no sleep, no touch.
 */
import type { KubeApi } from "@kopf/client";
import { OperatorSettings } from "@kopf/settings";
import { IsoTime, Patch, type RawBody, type Resource } from "@kopf/structs";
import { Effect } from "effect";
import * as Logging from "./Logging.ts";
import * as PatchApplier from "./PatchApplier.ts";
import * as Posting from "./Posting.ts";
import * as Pressure from "./Pressure.ts";

/** Kopf's `WAITING_KEEPALIVE_INTERVAL`: the longest sleep before a re-evaluating touch. */
export const KEEPALIVE_SECONDS = 600;

/** What to apply. */
export interface Input {
  readonly resource: Resource.Resource;
  readonly body: RawBody;
  readonly patch: Patch.Patch;
  /** Seconds until the earliest handler (or engine) wants to run again; `undefined` for none. */
  readonly delay: number | undefined;
  readonly pressure?: Pressure.Pressure | undefined;
  /** Whether a changing cause was handled (for the "cycle is finished" line). */
  readonly handled: boolean;
}

/** What applying left. */
export interface Output {
  /** The version to await as our own change's echo, if something was patched. */
  readonly resourceVersion: string | undefined;
  /** The patch functions to retry next cycle (after a 422), if any. */
  readonly remaining: Patch.Patch | undefined;
}

/** Reason of the Warning event posted about a patch the API server rejected as invalid. */
export const INVALID_PATCH_REASON = "InvalidPatch";

/**
 * A patch the API server rejected as invalid (not a conflict): an error line (kept local, not
 * bridged into an event) and one Warning event on the object; the patch is dropped, not retried
 * blindly — a later cycle decides afresh what to patch.
 */
const reportInvalid = (body: RawBody, outcome: Extract<PatchApplier.Outcome, { _tag: "Invalid" }>) =>
  Effect.gen(function* () {
    const message = `The API server rejected the patch as invalid and it is dropped: ${outcome.error.message}; the patch was ${JSON.stringify(outcome.write.payload)}`;
    yield* Effect.logError(message).pipe(Effect.annotateLogs(Logging.LOCAL, true));
    const events = yield* Posting.CurrentEvents;
    events?.warn(body, {
      reason: INVALID_PATCH_REASON,
      message: `The API server rejected a patch: ${outcome.error.message}`,
    });
  });

const seconds = (value: number): string => String(Math.round(value * 1000) / 1000);

/**
 * Applies the patch, then sleeps and touches as needed.
 *
 * @example
 * ```ts
 * const { resourceVersion, remaining } = yield* Applying.apply({ resource, body, patch, delay: 30, pressure, handled: true })
 * ```
 */
export const apply = (
  input: Input,
): Effect.Effect<Output, PatchApplier.PatchNotStored | Patch.PatchError, KubeApi> =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const storage = settings.persistence.progressStorage;
    const { patch, body, resource } = input;
    const delay = input.delay;
    const applied = !patch.isEmpty();
    let resourceVersion: string | undefined;
    let remaining: Patch.Patch | undefined;
    if (applied) {
      storage.touch({ body, patch, value: null });
      const outcome = yield* PatchApplier.apply({ resource, body, patch });
      switch (outcome._tag) {
        case "Gone":
          return { resourceVersion: undefined, remaining: undefined };
        case "Applied":
          resourceVersion = outcome.resourceVersion;
          break;
        case "Conflict":
          // Retried on the next cycle, against the newer body its event brings.
          yield* Effect.logDebug(
            "Patching met a newer object; the patch functions are retried on its next cycle.",
          );
          resourceVersion = outcome.resourceVersion;
          remaining = outcome.pending;
          break;
        case "Invalid":
          yield* reportInvalid(body, outcome);
          resourceVersion = outcome.resourceVersion;
          break;
      }
    }

    if (delay !== undefined && delay > 0 && applied) {
      yield* Effect.logDebug(`Sleeping was skipped because of the patch, ${seconds(delay)} seconds left.`);
    } else if (delay !== undefined) {
      let slept: Pressure.Slept = { fully: true, left: 0 };
      if (delay > KEEPALIVE_SECONDS) {
        yield* Effect.logDebug(
          `Sleeping for ${seconds(delay)} (capped ${KEEPALIVE_SECONDS}) seconds for the delayed handlers.`,
        );
        slept = yield* Pressure.sleep(input.pressure, KEEPALIVE_SECONDS);
      } else if (delay > 0) {
        yield* Effect.logDebug(`Sleeping for ${seconds(delay)} seconds for the delayed handlers.`);
        slept = yield* Pressure.sleep(input.pressure, delay);
      }
      if (applied && delay <= 0) {
        // The patch's own event brings the next cycle.
      } else if (!slept.fully) {
        yield* Effect.logDebug(
          `Sleeping was interrupted by new changes, ${seconds(slept.left)} seconds left.`,
        );
      } else {
        const touch = Patch.make(body);
        storage.touch({ body, patch: touch, value: IsoTime.format(yield* IsoTime.now) });
        const touched = yield* PatchApplier.apply({ resource, body, patch: touch });
        if (touched._tag === "Applied" && touched.resourceVersion !== undefined)
          resourceVersion = touched.resourceVersion;
      }
    } else if (!applied && input.handled) {
      yield* Effect.logDebug("Handling cycle is finished, waiting for new changes.");
    }
    return { resourceVersion, remaining };
  });

/**
 * The inputs of one processing cycle's causes (Kopf §3.1, `_detect_causes`): from the raw
 * event, the resource kind's handlers, the diff-base and progress storages, the finalizer name
 * and the object's memory, compute the essences `old` (last handled) and `new` (current), their
 * diff, and the `initial` flag. Pure: the storages only read the body.
 */
import type { DiffBaseStorage, ProgressStorage, StorageDecodeError } from "@kopf/storage";
import {
  Diff,
  type FieldPath,
  type Json,
  type RawBody,
  type RawEvent,
  type RawEventType,
} from "@kopf/structs";
import { Result } from "effect";
import * as ResourceMemory from "./ResourceMemory.ts";

/** What the causes of one event are detected from. */
export interface CauseInputs {
  /** The event's type; `null` for the initial listing. */
  readonly type: RawEventType | null;
  readonly body: RawBody;
  /** Our finalizer (`settings.persistence.finalizer`). */
  readonly finalizer: string;
  /** The last-handled essence, or `undefined` when none is stored. */
  readonly old: Json.JsonObject | undefined;
  /** The current essence. */
  readonly new: Json.JsonObject;
  /** `old` → `new`. */
  readonly diff: Diff.Diff;
  /** First noticed by the listing and not yet fully handled once (§3.7). */
  readonly initial: boolean;
}

/** Anything with an optional field path: handlers of every kind. */
export interface WithField {
  readonly field: FieldPath.FieldPath | undefined;
}

/** The handlers of the event's resource kind whose fields enter the essence (index handlers excluded). */
export interface HandlersOfResource {
  readonly watching: ReadonlyArray<WithField>;
  readonly changing: ReadonlyArray<WithField>;
  readonly spawning: ReadonlyArray<WithField>;
}

/** Everything {@link make} reads. */
export interface Sources {
  readonly event: RawEvent;
  readonly handlers: HandlersOfResource;
  /** `settings.persistence.diffbaseStorage`. */
  readonly diffbaseStorage: Pick<DiffBaseStorage.DiffBaseStorage, "fetch" | "build">;
  /** `settings.persistence.progressStorage`. */
  readonly progressStorage: Pick<ProgressStorage.ProgressStorage, "clear">;
  /** `settings.persistence.finalizer`. */
  readonly finalizer: string;
  /** The object's memory as recalled for this event. */
  readonly memory: ResourceMemory.ResourceMemory;
}

/**
 * The union of the `field` paths of the watching, changing and spawning handlers, each once, in
 * order of first appearance. These fields are copied into the essence even when they live
 * outside of it (e.g. `status.phase` or `metadata.generation`).
 *
 * @example
 * ```ts
 * import { CauseInputs } from "@kopf/causes";
 * CauseInputs.extraFields({ watching: [], changing: [{ field: ["status", "phase"] }], spawning: [] });
 * // [["status", "phase"]]
 * ```
 */
export const extraFields = (handlers: HandlersOfResource): ReadonlyArray<FieldPath.FieldPath> => {
  const seen = new Set<string>();
  const fields: Array<FieldPath.FieldPath> = [];
  for (const handler of [...handlers.watching, ...handlers.changing, ...handlers.spawning]) {
    if (handler.field === undefined) continue;
    const key = JSON.stringify(handler.field);
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push(handler.field);
  }
  return fields;
};

/**
 * Computes the cause inputs of an event: `old` = the stored essence, `new` = the essence built
 * with the handlers' extra fields, both without the progress storage's own marks; their diff;
 * and `initial` from the object's memory. Fails when the stored essence cannot be decoded.
 *
 * @example
 * ```ts
 * import { CauseInputs, ChangeCause } from "@kopf/causes";
 * const inputs = CauseInputs.make({ event, handlers, diffbaseStorage, progressStorage, finalizer, memory });
 * // Result<CauseInputs, StorageDecodeError>; then ChangeCause.make(inputs.success, context)
 * ```
 */
export const make = (sources: Sources): Result.Result<CauseInputs, StorageDecodeError> => {
  const body = sources.event.object;
  return Result.map(sources.diffbaseStorage.fetch({ body }), (stored) => {
    const { progressStorage } = sources;
    const old = stored === undefined ? undefined : progressStorage.clear({ essence: stored });
    const built = sources.diffbaseStorage.build({ body, extraFields: extraFields(sources.handlers) });
    const neu = progressStorage.clear({ essence: built });
    return {
      type: sources.event.type,
      body,
      finalizer: sources.finalizer,
      old,
      new: neu,
      diff: Diff.diff(old ?? null, neu),
      initial: ResourceMemory.isInitial(sources.memory),
    };
  });
};

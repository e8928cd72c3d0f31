/**
 * The inputs of one processing cycle's causes (docs/behaviour/causes.md#inputs, `_detect_causes`): from the raw
 * event, the registry's extra fields for the resource kind, the diff-base and progress storages, the finalizer name
 * and the object's memory, compute the essences `old` (last handled) and `new` (current), their
 * diff, and the `initial` flag. Pure: the storages only read the body.
 */
import type { Registry } from "@kopf/registry";
import type { DiffBaseStorage, ProgressStorage, StorageDecodeError } from "@kopf/storage";
import {
  Diff,
  type Json,
  type RawBody,
  type RawEvent,
  type RawEventType,
  type Resource,
} from "@kopf/structs";
import * as Result from "effect/Result";
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
  /** First noticed by the listing and not yet fully handled once (docs/behaviour/causes.md#resuming). */
  readonly initial: boolean;
}

/** Everything {@link make} reads. */
export interface Sources {
  readonly event: RawEvent;
  /** The registry; its `extraFields(resource)` (fields of watching, changing and spawning handlers) enter the essence. */
  readonly registry: Pick<Registry.Registry, "extraFields">;
  /** The event's resource kind. */
  readonly resource: Resource.Resource;
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
 * Computes the cause inputs of an event: `old` = the stored essence, `new` = the essence built
 * with the handlers' extra fields (so a field handler on `status.phase` sees its changes), both without the progress storage's own marks; their diff;
 * and `initial` from the object's memory. Fails when the stored essence cannot be decoded.
 *
 * @example
 * ```ts
 * import { CauseInputs, ChangeCause } from "@kopf/causes";
 * const { diffbaseStorage, progressStorage, finalizer } = settings.persistence;
 * const inputs = CauseInputs.make({ event, registry, resource, diffbaseStorage, progressStorage, finalizer, memory });
 * // Result<CauseInputs, StorageDecodeError>; then ChangeCause.make(inputs.success, context)
 * ```
 */
export const make = (sources: Sources): Result.Result<CauseInputs, StorageDecodeError> => {
  const body = sources.event.object;
  return Result.map(sources.diffbaseStorage.fetch({ body }), (stored) => {
    const { progressStorage } = sources;
    const old = stored === undefined ? undefined : progressStorage.clear({ essence: stored });
    const extraFields = sources.registry.extraFields(sources.resource);
    const built = sources.diffbaseStorage.build({ body, extraFields });
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

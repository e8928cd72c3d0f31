/**
 * What the operator remembers about each object between events, as far as cause detection is
 * concerned (docs/behaviour/causes.md#resuming): whether the object was first noticed by the initial listing, and
 * whether it has been fully handled once in this process. Together they give `initial`, which
 * turns on the resume handlers exactly once per object after an operator (re)start.
 *
 * Memories are keyed by `metadata.uid` (`""` when absent), created on first sight, kept across
 * re-listings (so a relist after `410 Gone` does not resume again) and forgotten on `DELETED`.
 */
import { Body, type RawBody, type RawEvent } from "@kopf/structs";
import * as HashMap from "effect/HashMap";
import * as Option from "effect/Option";

/** The per-object memory. */
export interface ResourceMemory {
  /** The first event seen for the object was from the listing (`type: null`). Set at creation only. */
  readonly noticedByListing: boolean;
  /** A handler-reason cause finished all its handlers (or had none) at least once. */
  readonly fullyHandledOnce: boolean;
}

/** The memories of all objects of one watcher, by uid. */
export type Memories = HashMap.HashMap<string, ResourceMemory>;

/** No memories yet. */
export const empty = (): Memories => HashMap.empty();

/**
 * The memory of an object first seen with an event of this type.
 *
 * @example
 * ```ts
 * import { ResourceMemory } from "@kopf/causes";
 * ResourceMemory.fresh(null); // { noticedByListing: true, fullyHandledOnce: false }
 * ```
 */
export const fresh = (type: RawEvent["type"]): ResourceMemory => ({
  noticedByListing: type === null,
  fullyHandledOnce: false,
});

/** `initial` for the changing cause: noticed by the listing and not yet fully handled once. */
export const isInitial = (memory: ResourceMemory): boolean =>
  memory.noticedByListing && !memory.fullyHandledOnce;

/** The memory after a handler-reason cause was fully handled (when the diff-base is stored). */
export const markFullyHandled = (memory: ResourceMemory): ResourceMemory =>
  memory.fullyHandledOnce ? memory : { ...memory, fullyHandledOnce: true };

/** The key of an object's memory: its uid, or `""` when it has none (as in Kopf). */
export const keyOf = (body: unknown): string => Body.uid(body as RawBody) ?? "";

/** The memory for this event and the memories to keep afterwards. */
export interface Recalled {
  readonly key: string;
  readonly memory: ResourceMemory;
  readonly memories: Memories;
}

/**
 * Recalls (or creates) the memory of the event's object. On `DELETED`, the memory is still
 * returned for this event but is dropped from the returned memories.
 *
 * @example
 * ```ts
 * import { ResourceMemory } from "@kopf/causes";
 * const first = ResourceMemory.recall(ResourceMemory.empty(), { type: null, object: { metadata: { uid: "u" } } });
 * ResourceMemory.isInitial(first.memory); // true
 * ```
 */
export const recall = (memories: Memories, event: RawEvent): Recalled => {
  const key = keyOf(event.object);
  const known = HashMap.get(memories, key);
  const memory = Option.getOrElse(known, () => fresh(event.type));
  if (event.type === "DELETED") return { key, memory, memories: HashMap.remove(memories, key) };
  return { key, memory, memories: Option.isSome(known) ? memories : HashMap.set(memories, key, memory) };
};

/**
 * Stores an updated memory under its key, unless the object was forgotten in the meantime
 * (a `DELETED` event was recalled): a gone object must not be resurrected.
 */
export const remember = (memories: Memories, key: string, memory: ResourceMemory): Memories =>
  HashMap.has(memories, key) ? HashMap.set(memories, key, memory) : memories;

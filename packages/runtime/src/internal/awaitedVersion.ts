/**
 * The version of our own last patch that an object's worker still awaits from the watch, and
 * until when: set when a cycle returns the version of its patch (or of a re-read), cleared when
 * that version arrives, when the object is deleted, or when a cycle says nothing is awaited.
 * A pure state step per event and per cycle; the per-object queues keep the state (and carry it
 * to the object's next worker when an idle one ends before the version came).
 */
import type { RawEvent } from "@kopf/structs";
import { ObjectKey } from "@kopf/watcher";

/** An awaited version and its deadline (Clock milliseconds). */
export interface Awaited {
  readonly version: string;
  readonly deadline: number;
}

/**
 * What is still awaited once `event` is taken: nothing if it is the awaited version or a deletion.
 *
 * @example
 * ```ts
 * onEvent({ version: "7", deadline: 5000 }, { type: "MODIFIED", object: { metadata: { resourceVersion: "7" } } }) // undefined
 * ```
 */
export const onEvent = (awaited: Awaited | undefined, event: RawEvent): Awaited | undefined =>
  awaited !== undefined && (event.type === "DELETED" || ObjectKey.versionOf(event.object) === awaited.version)
    ? undefined
    : awaited;

/**
 * What is awaited after a cycle returned `version` (`null`: nothing any more; `undefined`: as it
 * was), at `now`, with `timeout` seconds to wait (0: consistency is not tracked).
 *
 * @example
 * ```ts
 * afterCycle(undefined, "8", 1000, 5) // { version: "8", deadline: 6000 }
 * afterCycle({ version: "8", deadline: 6000 }, null, 2000, 5) // undefined
 * ```
 */
export const afterCycle = (
  awaited: Awaited | undefined,
  version: string | null | undefined,
  now: number,
  timeout: number,
): Awaited | undefined => {
  if (version === null) return undefined;
  if (version !== undefined && timeout > 0) return { version, deadline: now + timeout * 1000 };
  return awaited;
};

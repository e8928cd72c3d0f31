/**
 * The objects a watch currently knows, so that a relisting (after 410 Gone, or after a failed
 * listing) can tell which objects vanished while the watch could not see their `DELETED`
 * events, and report them as synthetic `DELETED` events. Only a skeleton of each object is kept
 * (apiVersion, kind, name, namespace, uid, resourceVersion): enough to route the event to the
 * object's queue and to stop what runs for it, at a small memory cost per object.
 */
import type { RawBody } from "@kopf/structs";
import * as ObjectKey from "../ObjectKey.ts";
import type * as WatchState from "../WatchState.ts";

const SKELETON_FIELDS = ["name", "namespace", "uid", "resourceVersion"] as const;

// Built field by field (made for every event: spreads of computed keys are slow to build).
const skeleton = (body: RawBody): RawBody => {
  const meta = body.metadata ?? {};
  const metadata: Record<string, string> = {};
  for (const key of SKELETON_FIELDS) {
    const value = meta[key];
    if (typeof value === "string") metadata[key] = value;
  }
  const out: { -readonly [K in keyof RawBody]: RawBody[K] } = {};
  if (body.apiVersion !== undefined) out.apiVersion = body.apiVersion;
  if (body.kind !== undefined) out.kind = body.kind;
  out.metadata = metadata;
  return out;
};

/** The tracker of one watch. Not shared between fibers. */
export interface KnownObjects {
  /** Records an emitted event (`type: null` for a listed item). */
  readonly seen: (type: WatchState.EventType | null, body: RawBody) => void;
  /** A (re)listing starts: from now on, listed items are what exists. */
  readonly listing: () => void;
  /** The listing ended: the objects known before but not listed, now forgotten (none outside a listing). */
  readonly vanished: () => ReadonlyArray<RawBody>;
  readonly size: () => number;
}

/** A tracker that knows nothing yet. */
export const make = (): KnownObjects => {
  const known = new Map<string, RawBody>();
  let listed: Set<string> | null = null;
  return {
    seen: (type, body) => {
      const key = ObjectKey.of(body);
      if (type === "DELETED") known.delete(key);
      else known.set(key, skeleton(body));
      if (type === null) listed?.add(key);
    },
    listing: () => {
      listed = new Set();
    },
    vanished: () => {
      const present = listed;
      listed = null;
      if (present === null) return [];
      const gone: Array<RawBody> = [];
      for (const [key, body] of known) {
        if (!present.has(key)) {
          gone.push(body);
          known.delete(key);
        }
      }
      return gone;
    },
    size: () => known.size,
  };
};

/**
 * Presence records of peering operators in Kopf's format (docs/behaviour/peering.md#presence-records, docs/behaviour/peering.md#reactions, docs/behaviour/peering.md), as pure
 * values: parsing the peering object's `status` (`{identity: {priority, lifetime, lastseen}}`),
 * liveness of a peer (dead once `lastseen + lifetime <= now`; a missing `lastseen` means now, a
 * missing `lifetime` 60 s), the record this operator writes, and the judgement of a peering
 * event: which dead peers to clean, whether to pause (a live peer with a higher priority), to
 * pause everyone (same priority: a conflict), or to resume, and when the blocking peers expire.
 */
import { IsoTime } from "@kopf/structs";
import * as Result from "effect/Result";

/** One operator's presence. Times are epoch microseconds; the lifetime is in seconds. */
export interface Peer {
  readonly id: string;
  readonly priority: number;
  readonly lifetime: number;
  readonly lastseen: IsoTime.Micros;
}

/** The default lifetime of a record without one. */
export const DEFAULT_LIFETIME = 60;

const asNumber = (value: unknown, fallback: number): number => {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
};

/**
 * A peer from its record (Kopf's `Peer(identity, **record)`).
 *
 * @example
 * ```ts
 * Peers.fromRecord("op-1", { priority: 10, lifetime: 60, lastseen: "2020-12-31T23:59:59.123456+00:00" }, now)
 * ```
 */
export const fromRecord = (id: string, record: unknown, now: IsoTime.Micros): Peer => {
  const fields = typeof record === "object" && record !== null ? (record as Record<string, unknown>) : {};
  const parsed = typeof fields.lastseen === "string" ? IsoTime.parse(fields.lastseen) : undefined;
  return {
    id,
    priority: asNumber(fields.priority, 0),
    lifetime: asNumber(fields.lifetime, DEFAULT_LIFETIME),
    lastseen: parsed !== undefined && Result.isSuccess(parsed) ? parsed.success : now,
  };
};

/** All peers of a peering object's `status` (null entries, i.e. removals, are skipped). */
export const fromStatus = (status: unknown, now: IsoTime.Micros): ReadonlyArray<Peer> =>
  typeof status === "object" && status !== null
    ? Object.entries(status as Record<string, unknown>)
        .filter(([, record]) => record !== null && record !== undefined)
        .map(([id, record]) => fromRecord(id, record, now))
    : [];

/** When the peer's record expires. */
export const deadline = (peer: Peer): IsoTime.Micros => peer.lastseen + peer.lifetime * 1_000_000;

/** Whether the peer is dead at `now` (the deadline itself is dead). */
export const isDead = (peer: Peer, now: IsoTime.Micros): boolean => deadline(peer) <= now;

/** The record as written to the status (`priority`, `lifetime`, `lastseen`). */
export const toRecord = (peer: Peer) => ({
  priority: Math.trunc(peer.priority),
  lifetime: Math.trunc(peer.lifetime),
  lastseen: IsoTime.format(peer.lastseen),
});

/**
 * Kopf's representation of a peer in log lines.
 *
 * @example
 * ```ts
 * Peers.describe(peer) // "<Peer some-id: priority=0, lifetime=60, lastseen='2020-12-31T23:59:59.123456+00:00'>"
 * ```
 */
export const describe = (peer: Peer): string =>
  `<Peer ${peer.id}: priority=${peer.priority}, lifetime=${peer.lifetime}, lastseen='${IsoTime.format(peer.lastseen)}'>`;

/** What a peering event means for this operator. */
export type Verdict =
  | { readonly _tag: "Pause"; readonly blockers: ReadonlyArray<Peer> }
  | { readonly _tag: "Conflict"; readonly blockers: ReadonlyArray<Peer> }
  | { readonly _tag: "Resume" };

/** The judgement of one peering event. */
export interface Judgement {
  readonly dead: ReadonlyArray<Peer>;
  readonly verdict: Verdict;
  /** Seconds until the earliest blocking peer expires (then re-evaluate), if any. */
  readonly wake: number | undefined;
}

/**
 * Judges the peers of the peering object for the operator `identity` with `priority`.
 *
 * @example
 * ```ts
 * Peers.judge({ peers, identity: "me", priority: 0, now }).verdict._tag // "Pause" if a live peer has priority > 0
 * ```
 */
export const judge = (input: {
  readonly peers: ReadonlyArray<Peer>;
  readonly identity: string;
  readonly priority: number;
  readonly now: IsoTime.Micros;
}): Judgement => {
  const { peers, identity, priority, now } = input;
  const dead = peers.filter((peer) => isDead(peer, now));
  const live = peers.filter((peer) => !isDead(peer, now) && peer.id !== identity);
  const higher = live.filter((peer) => peer.priority > priority);
  const same = live.filter((peer) => peer.priority === priority);
  const blockers = [...same, ...higher];
  const wake =
    blockers.length === 0 ? undefined : Math.min(...blockers.map((p) => (deadline(p) - now) / 1_000_000));
  const verdict: Verdict =
    higher.length > 0
      ? { _tag: "Pause", blockers: higher }
      : same.length > 0
        ? { _tag: "Conflict", blockers: same }
        : { _tag: "Resume" };
  return { dead, verdict, wake };
};

/**
 * Seconds to sleep between keep-alives: a little less than the lifetime (5–10 s of jitter), at
 * least 1 s and never more than the lifetime; `jitter` is Kopf's `randint(5, 10)`.
 *
 * @example
 * ```ts
 * Peers.keepAliveInterval(60, 7) // 53
 * ```
 */
export const keepAliveInterval = (lifetime: number, jitter: number): number =>
  Math.max(1, Math.min(lifetime, Math.max(1, lifetime - jitter)));

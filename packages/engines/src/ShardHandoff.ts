/**
 * The decisions of a sharding ring's member, pure: which ranges of the hash space it keeps,
 * gives up, takes, and may run handlers for, from its own confirmed holding (what its Lease
 * says) and the other members' Leases as last observed.
 *
 * The rules that keep two members from ever handling one object at once:
 *
 * - a member runs only ranges its own Lease publishes (a confirmed write) and that no other
 *   live member's Lease publishes, in a listing taken after that write;
 * - a member gives a range up (stops new work, lets running cycles end, stops daemons) before
 *   it publishes the release, and takes only ranges no live member publishes;
 * - when two members publish overlapping ranges (their views of the ring differed), the one
 *   not assigned the range gives it up, and among assigned ones the greater identity does;
 * - a member is live while its Lease is valid by the observed-time rule (duration after the
 *   record was last seen to change); a member that cannot renew stops acting at its renew
 *   deadline, before any other member can see it expire, and publishes nothing on its return.
 */
import { ShardRange } from "@kopf/structs";
import * as ShardRing from "./ShardRing.ts";

/** Another member's Lease as last observed. */
export interface Member {
  readonly identity: string;
  /** The ranges its Lease publishes. */
  readonly holding: ReadonlyArray<ShardRange.ShardRange>;
  readonly leaseDurationSeconds: number;
  /** The record's content, to notice changes. */
  readonly fingerprint: string;
  /** When the record was seen to change (epoch microseconds). */
  readonly at: number;
}

/**
 * Folds a new listing into the members known before: a member's expiry clock restarts only
 * when its record changed; members absent from the listing are gone.
 *
 * @example
 * observe(new Map(), [{ identity: "b", holding: [], leaseDurationSeconds: 15, fingerprint: "1" }], now)
 */
export const observe = (
  known: ReadonlyMap<string, Member>,
  listed: ReadonlyArray<Omit<Member, "at">>,
  now: number,
): ReadonlyMap<string, Member> =>
  new Map(
    listed.map((member) => {
      const before = known.get(member.identity);
      const at = before !== undefined && before.fingerprint === member.fingerprint ? before.at : now;
      return [member.identity, { ...member, at }];
    }),
  );

/** Whether a member's Lease is still valid at `now`. */
export const isLive = (member: Member, now: number): boolean =>
  member.at + member.leaseDurationSeconds * 1_000_000 > now;

/** What a member does this round. */
export interface Plan {
  /** The live members, this one included, sorted. */
  readonly live: ReadonlyArray<string>;
  /** The ranges the ring assigns to this member. */
  readonly desired: ReadonlyArray<ShardRange.ShardRange>;
  /** Ranges to give up: stop, drain, then publish without them. */
  readonly release: ReadonlyArray<ShardRange.ShardRange>;
  /** Ranges to take: publish, then run once no one else publishes them. */
  readonly acquire: ReadonlyArray<ShardRange.ShardRange>;
  /** What to publish: the holding kept plus the ranges taken. */
  readonly holding: ReadonlyArray<ShardRange.ShardRange>;
}

/**
 * Plans a round for `me`, holding `held` (as its Lease confirms), among `members` at `now`.
 *
 * @example
 * plan("a", [], new Map(), now).acquire // the whole space: a is alone
 */
export const plan = (
  me: string,
  held: ReadonlyArray<ShardRange.ShardRange>,
  members: ReadonlyMap<string, Member>,
  now: number,
): Plan => {
  const others = [...members.values()].filter((member) => member.identity !== me && isLive(member, now));
  const live = [me, ...others.map((member) => member.identity)].sort();
  const assignment = ShardRing.assign(live);
  const desired = assignment.get(me) ?? [];
  const elsewhere = others.flatMap((member) => member.holding);
  // Overlaps with another's published holding: ranges not assigned here are released anyway
  // (below); a range assigned to both (views differed) goes to the smaller identity.
  const yielded = others.flatMap((member) => {
    const overlap = ShardRange.intersect(held, member.holding);
    if (overlap.length === 0) return [];
    const theirs = assignment.get(member.identity) ?? [];
    return member.identity < me ? ShardRange.intersect(overlap, theirs) : [];
  });
  const release = ShardRange.normalize([...ShardRange.subtract(held, desired), ...yielded]);
  const kept = ShardRange.subtract(held, release);
  const acquire = ShardRange.subtract(ShardRange.subtract(desired, kept), elsewhere);
  return { live, desired, release, acquire, holding: ShardRange.normalize([...kept, ...acquire]) };
};

/**
 * The ranges `me` may run handlers for: its confirmed holding minus anything another live
 * member publishes (in a listing taken after the holding was confirmed).
 *
 * @example
 * runnable("a", held, members, now)
 */
export const runnable = (
  me: string,
  held: ReadonlyArray<ShardRange.ShardRange>,
  members: ReadonlyMap<string, Member>,
  now: number,
): ReadonlyArray<ShardRange.ShardRange> =>
  ShardRange.subtract(
    held,
    [...members.values()]
      .filter((member) => member.identity !== me && isLive(member, now))
      .flatMap((member) => member.holding),
  );

/**
 * Microseconds until the first live member's Lease expires (`undefined` without any), so that a
 * member wakes up exactly when it may take ranges over.
 *
 * @example
 * nextExpiry(members, now) // e.g. 3_500_000
 */
export const nextExpiry = (members: ReadonlyMap<string, Member>, now: number): number | undefined => {
  let first: number | undefined;
  for (const member of members.values()) {
    const left = member.at + member.leaseDurationSeconds * 1_000_000 - now;
    if (left > 0 && (first === undefined || left < first)) first = left;
  }
  return first;
};

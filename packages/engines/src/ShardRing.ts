/**
 * The assignment of the hash space to the members of a sharding ring: consistent hashing with
 * virtual nodes. Every member places `tokens` points on the ring (the FNV-1a hash of
 * `identity#i`, mixed by MurmurHash3's 64-bit finalizer: FNV-1a alone barely moves the high
 * bits for texts differing in their last characters, which would bunch a member's points); a hash belongs to the member of the first point at or after it, wrapping
 * around at 2^64. The result depends only on the set of members (not their order), the ranges
 * of all members partition the space, and a member joining takes ranges only from others
 * (a member leaving gives only its own), so few objects change hands on each change.
 */
import { ShardRange } from "@kopf/structs";

const MASK = ShardRange.SPACE - 1n;

/** MurmurHash3's `fmix64`: every input bit affects every output bit. */
const mix = (value: bigint): bigint => {
  let h = value;
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & MASK;
  h ^= h >> 33n;
  h = (h * 0xc4ceb9fe1a85ec53n) & MASK;
  h ^= h >> 33n;
  return h;
};

/** Points per member: enough for an even spread among a handful of replicas. */
export const TOKENS = 32;

/**
 * The ranges of every member (members without any range are absent).
 *
 * @example
 * assign(["a"]).get("a") // [{ start: 0n, end: 2n ** 64n }]
 */
export const assign = (
  members: Iterable<string>,
  tokens: number = TOKENS,
): ReadonlyMap<string, ReadonlyArray<ShardRange.ShardRange>> => {
  const points: Array<{ readonly at: bigint; readonly member: string }> = [];
  for (const member of new Set(members)) {
    for (let i = 0; i < tokens; i++) points.push({ at: mix(ShardRange.fnv1a64(`${member}#${i}`)), member });
  }
  points.sort((a, b) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.member < b.member ? -1 : a.member > b.member ? 1 : 0,
  );
  const ranges = new Map<string, Array<ShardRange.ShardRange>>();
  const give = (member: string, start: bigint, end: bigint) => {
    if (start >= end) return;
    const list = ranges.get(member) ?? [];
    list.push({ start, end });
    ranges.set(member, list);
  };
  const first = points[0];
  if (first === undefined) return new Map();
  let previous = 0n;
  for (const point of points) {
    // [previous, point] belongs to the point's member (the end is exclusive, so point + 1).
    give(point.member, previous, point.at + 1n);
    previous = point.at + 1n;
  }
  give(first.member, previous, ShardRange.SPACE);
  return new Map([...ranges].map(([member, list]) => [member, ShardRange.normalize(list)]));
};

/**
 * The member a hash belongs to, or `undefined` without members.
 *
 * @example
 * ownerOf(assign(["a", "b"]), ShardRange.fnv1a64(uid)) // "a" or "b"
 */
export const ownerOf = (
  assignment: ReadonlyMap<string, ReadonlyArray<ShardRange.ShardRange>>,
  hash: bigint,
): string | undefined => {
  for (const [member, ranges] of assignment) if (ShardRange.contains(ranges, hash)) return member;
  return undefined;
};

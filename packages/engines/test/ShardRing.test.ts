// The ring's assignment, property-tested: the members' ranges partition the hash space; the
// result does not depend on the order of the members; a joining member only takes hashes from
// others and a leaving one only gives its own (minimal movement); the spread is even enough.
import { ShardRange } from "@kopf/structs";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ShardRing from "../src/ShardRing.ts";

const member = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const members = fc.uniqueArray(member, { minLength: 1, maxLength: 7 });
const hash = fc.bigInt({ min: 0n, max: ShardRange.SPACE - 1n });

const covered = (assignment: ReadonlyMap<string, ReadonlyArray<ShardRange.ShardRange>>) =>
  ShardRange.normalize([...assignment.values()].flat());

describe("ShardRing.assign", () => {
  it("one member owns everything; no member owns nothing", () => {
    expect(ShardRing.assign(["a"]).get("a")).toEqual([ShardRange.WHOLE]);
    expect(ShardRing.assign([]).size).toBe(0);
  });

  it("the members' ranges partition the space", () => {
    fc.assert(
      fc.property(members, (list) => {
        const assignment = ShardRing.assign(list);
        expect(covered(assignment)).toEqual([ShardRange.WHOLE]);
        const all = [...assignment.values()].flat();
        const total = all.reduce((sum, r) => sum + (r.end - r.start), 0n);
        expect(total).toBe(ShardRange.SPACE); // no overlaps: the sizes add up to the space exactly
      }),
    );
  });

  it("depends on the set of members only", () => {
    fc.assert(
      fc.property(members, (list) => {
        expect(ShardRing.assign([...list].reverse())).toEqual(ShardRing.assign(list));
      }),
    );
  });

  it("a member joining takes hashes only from others; leaving gives only its own", () => {
    fc.assert(
      fc.property(
        members,
        member,
        fc.array(hash, { minLength: 50, maxLength: 50 }),
        (list, joining, hashes) => {
          fc.pre(!list.includes(joining));
          const before = ShardRing.assign(list);
          const after = ShardRing.assign([...list, joining]);
          for (const h of hashes) {
            const was = ShardRing.ownerOf(before, h);
            const is = ShardRing.ownerOf(after, h);
            if (was !== is) expect(is).toBe(joining); // join: moved hashes go to the newcomer
            // leave (after → before): moved hashes are the leaver's only.
            if (was !== is) expect(is === joining || was === undefined).toBe(true);
          }
        },
      ),
    );
  });

  it("spreads 3,000 random uids evenly enough over 3 and 5 members", () => {
    // Version-4 uids as the API server makes them (random hex), from a fixed-seed generator.
    let seed = 42;
    const hex = (n: number) =>
      Array.from({ length: n }, () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return ((seed >>> 16) & 15).toString(16);
      }).join("");
    const uids = Array.from({ length: 3000 }, () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`);
    for (const count of [3, 5]) {
      const assignment = ShardRing.assign(Array.from({ length: count }, (_, i) => `replica-${i}`));
      const counts = new Map<string, number>();
      for (const uid of uids) {
        const owner = ShardRing.ownerOf(assignment, ShardRange.fnv1a64(uid)) ?? "none";
        counts.set(owner, (counts.get(owner) ?? 0) + 1);
      }
      expect(counts.size).toBe(count);
      for (const n of counts.values()) expect(n).toBeGreaterThan(3000 / count / 2);
    }
  });
});

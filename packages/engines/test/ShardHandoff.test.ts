// A ring member's decisions, stepped by listings and times: alone it takes the whole space;
// with others it takes only its assignment and nothing another live member publishes; it
// releases what is no longer assigned; overlaps (differing views) go to the smaller identity;
// a member's lease expires by the observed-time rule; it runs only what no one else publishes.
import { ShardRange } from "@kopf/structs";
import { describe, expect, it } from "vitest";
import * as ShardHandoff from "../src/ShardHandoff.ts";
import * as ShardRing from "../src/ShardRing.ts";

const S = 1_000_000;
const HALF = 1n << 63n;
const low = [{ start: 0n, end: HALF }];
const high = [{ start: HALF, end: ShardRange.SPACE }];

const listed = (identity: string, holding: ReadonlyArray<ShardRange.ShardRange>, fingerprint = "1") => ({
  identity,
  holding,
  leaseDurationSeconds: 15,
  fingerprint,
});

describe("ShardHandoff", () => {
  it("alone, a member takes the whole space", () => {
    const plan = ShardHandoff.plan("a", [], new Map(), 0);
    expect(plan.acquire).toEqual([ShardRange.WHOLE]);
    expect(plan.holding).toEqual([ShardRange.WHOLE]);
    expect(plan.release).toEqual([]);
  });

  it("a newcomer takes only its assignment, and none of it while another publishes it", () => {
    const members = ShardHandoff.observe(new Map(), [listed("a", [ShardRange.WHOLE])], 0);
    const plan = ShardHandoff.plan("b", [], members, 0);
    expect(plan.desired).toEqual(ShardRing.assign(["a", "b"]).get("b"));
    expect(plan.acquire).toEqual([]); // a still publishes everything
  });

  it("the holder releases what the ring now assigns to the newcomer, keeps the rest", () => {
    const members = ShardHandoff.observe(new Map(), [listed("b", [])], 0);
    const plan = ShardHandoff.plan("a", [ShardRange.WHOLE], members, 0);
    expect(plan.release).toEqual(ShardRing.assign(["a", "b"]).get("b"));
    expect(plan.holding).toEqual(ShardRing.assign(["a", "b"]).get("a"));
    expect(plan.acquire).toEqual([]);
  });

  it("once released, the newcomer takes its ranges; it runs them only while no one publishes them", () => {
    const aHolds = ShardRing.assign(["a", "b"]).get("a") ?? [];
    const bWants = ShardRing.assign(["a", "b"]).get("b") ?? [];
    const members = ShardHandoff.observe(new Map(), [listed("a", aHolds)], 0);
    expect(ShardHandoff.plan("b", [], members, 0).acquire).toEqual(bWants);
    expect(ShardHandoff.runnable("b", bWants, members, 0)).toEqual(bWants);
    const stale = ShardHandoff.observe(new Map(), [listed("a", [ShardRange.WHOLE])], 0);
    expect(ShardHandoff.runnable("b", bWants, stale, 0)).toEqual([]);
  });

  it("an expired member's holding is ignored; a changed record restarts its clock", () => {
    let members = ShardHandoff.observe(new Map(), [listed("a", [ShardRange.WHOLE])], 0);
    members = ShardHandoff.observe(members, [listed("a", [ShardRange.WHOLE])], 10 * S);
    expect(ShardHandoff.plan("b", [], members, 14.9 * S).acquire).toEqual([]);
    expect(ShardHandoff.plan("b", [], members, 15 * S).acquire).toEqual([ShardRange.WHOLE]);
    members = ShardHandoff.observe(members, [listed("a", [ShardRange.WHOLE], "2")], 12 * S);
    expect(ShardHandoff.plan("b", [], members, 15 * S).acquire).toEqual([]);
  });

  it("overlapping holdings assigned to both (views differed): the greater identity yields", () => {
    // Each thinks it is alone with the whole space (e.g. both started at once).
    const sees = (other: string) => ShardHandoff.observe(new Map(), [listed(other, [ShardRange.WHOLE])], 0);
    const planA = ShardHandoff.plan("a", [ShardRange.WHOLE], sees("b"), 0);
    const planB = ShardHandoff.plan("b", [ShardRange.WHOLE], sees("a"), 0);
    // Both now see each other: each releases what is not its own; b also yields nothing of a's.
    expect(ShardRange.normalize([...planA.holding, ...planB.holding])).toEqual([ShardRange.WHOLE]);
    expect(ShardRange.intersect(planA.holding, planB.holding)).toEqual([]);
    const contested = ShardHandoff.plan(
      "b",
      high,
      ShardHandoff.observe(new Map(), [listed("a", high)], 0),
      0,
    );
    const bOwns = ShardRing.assign(["a", "b"]).get("b") ?? [];
    expect(ShardRange.intersect(contested.holding, ShardRing.assign(["a", "b"]).get("a") ?? [])).toEqual([]);
    expect(ShardRange.intersect(contested.acquire, high)).toEqual([]);
    expect(ShardRange.subtract(ShardRange.intersect(bOwns, low), contested.holding)).toEqual([]);
  });
});

// The election's state machine, stepped by observations and times (microseconds): client-go's
// acquisition rules (absent, released, own, expired by the observed-time rule), transitions and
// acquire times, the optimistic renewal, fencing at the renew deadline, the release record.
import { describe, expect, it } from "vitest";
import * as LeaderElection from "../src/LeaderElection.ts";
import type * as LeaseRecord from "../src/LeaseRecord.ts";

const S = 1_000_000;
const config: LeaderElection.Config = {
  identity: "me",
  leaseDuration: 15,
  renewDeadline: 10,
  retryPeriod: 2,
};

const held = (holder: string, renew: number, transitions = 3, duration = 15): LeaseRecord.LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: duration,
  acquireTime: 0,
  renewTime: renew,
  leaseTransitions: transitions,
});
const found = (record: LeaseRecord.LeaseRecord, resourceVersion = "7"): LeaderElection.Observation => ({
  _tag: "Found",
  record,
  resourceVersion,
});

/** The state after a first look at a record. */
const firstSeen = (record: LeaseRecord.LeaseRecord, at: number) =>
  LeaderElection.observe(config, LeaderElection.initial, found(record), at).state;

describe("observe", () => {
  it.each([
    ["absent: create it, transitions 0", { _tag: "Absent" } as const, "Create", 0],
    ["released (empty holder): take it, transitions +1", found(held("", 0)), "Update", 4],
    ["held by me: renew, transitions kept", found(held("me", 0)), "Update", 3],
    ["held by another, just seen: wait", found(held("other", 0)), "Wait", undefined],
  ])("%s", (_, observation, action, transitions) => {
    const decided = LeaderElection.observe(config, LeaderElection.initial, observation, 100 * S);
    expect(decided.action._tag).toBe(action);
    if (decided.action._tag === "Create" || decided.action._tag === "Update") {
      expect(decided.action.record.holderIdentity).toBe("me");
      expect(decided.action.record.leaseDurationSeconds).toBe(15);
      expect(decided.action.record.renewTime).toBe(100 * S);
      expect(decided.action.record.leaseTransitions).toBe(transitions);
    }
    if (decided.action._tag === "Update") expect(decided.action.resourceVersion).toBe("7");
  });

  it("expiry counts from when the record was seen to change, not from its timestamps", () => {
    // The record's renewTime is ancient (a skewed clock): it is still valid for 15 s after first seen.
    const record = held("other", -1000 * S);
    let state = LeaderElection.observe(config, LeaderElection.initial, found(record), 100 * S).state;
    for (const at of [100, 105, 114.9]) {
      const decided = LeaderElection.observe(config, state, found(record), at * S);
      expect(decided.action._tag).toBe("Wait");
      state = decided.state;
    }
    const expired = LeaderElection.observe(config, state, found(record), 115 * S);
    expect(expired.action).toMatchObject({
      _tag: "Update",
      record: { holderIdentity: "me", leaseTransitions: 4, acquireTime: 115 * S },
    });
  });

  it("a renewed record restarts the expiry clock", () => {
    let state = firstSeen(held("other", 1), 100 * S);
    state = LeaderElection.observe(config, state, found(held("other", 2), "8"), 110 * S).state;
    expect(LeaderElection.observe(config, state, found(held("other", 2), "8"), 120 * S).action._tag).toBe(
      "Wait",
    );
    expect(LeaderElection.observe(config, state, found(held("other", 2), "8"), 125 * S).action._tag).toBe(
      "Update",
    );
  });

  it("the lease duration is the record's own (a released lease's 1 s)", () => {
    const state = LeaderElection.observe(
      config,
      LeaderElection.initial,
      found(held("other", 0, 3, 1)),
      100 * S,
    ).state;
    expect(LeaderElection.observe(config, state, found(held("other", 0, 3, 1)), 101 * S).action._tag).toBe(
      "Update",
    );
  });

  it("renewing keeps the acquire time", () => {
    const record = { ...held("me", 5 * S), acquireTime: 42 };
    const decided = LeaderElection.observe(config, LeaderElection.initial, found(record), 100 * S);
    expect(decided.action).toMatchObject({ _tag: "Update", record: { acquireTime: 42, renewTime: 100 * S } });
  });
});

describe("leading and fencing", () => {
  const won = LeaderElection.written(config, held("me", 100 * S), "8", 100 * S, 100.2 * S);

  it("leads from the start of the successful write until the renew deadline", () => {
    expect(LeaderElection.isLeading(config, won, 100 * S)).toBe(true);
    expect(LeaderElection.isLeading(config, won, 109.999 * S)).toBe(true);
    expect(LeaderElection.isLeading(config, won, 110 * S)).toBe(false);
    expect(LeaderElection.isLeading(config, LeaderElection.initial, 100 * S)).toBe(false);
  });

  it("stops before any other candidate can see the lease expire", () => {
    // Another candidate sees the write no earlier than it started; it may take over at +15 s.
    const other = { ...config, identity: "other" };
    const seen = LeaderElection.observe(
      other,
      LeaderElection.initial,
      found(held("me", 100 * S), "8"),
      100 * S,
    );
    const lastDenied = LeaderElection.observe(
      other,
      seen.state,
      found(held("me", 100 * S), "8"),
      114.999 * S,
    );
    expect(lastDenied.action._tag).toBe("Wait");
    expect(LeaderElection.isLeading(config, won, 110 * S)).toBe(false);
  });

  it("a write naming another holder does not lead", () => {
    expect(LeaderElection.written(config, held("other", 0), "9", 0, 0).renewedAt).toBeUndefined();
  });

  it("the leader renews optimistically with its last version; others read first", () => {
    expect(LeaderElection.plan(config, won, 102 * S)).toMatchObject({
      _tag: "Update",
      resourceVersion: "8",
      record: { holderIdentity: "me", renewTime: 102 * S, leaseTransitions: 3 },
    });
    expect(LeaderElection.plan(config, won, 110 * S)._tag).toBe("Get");
    expect(LeaderElection.plan(config, LeaderElection.initial, 0)._tag).toBe("Get");
  });

  it("observing someone else's record drops an earlier renewal", () => {
    const taken = LeaderElection.observe(config, won, found(held("other", 0), "9"), 101 * S);
    expect(LeaderElection.isLeading(config, taken.state, 101 * S)).toBe(false);
  });

  it("wakes at the fencing deadline, else every retry period", () => {
    expect(LeaderElection.delay(config, won, 100 * S)).toBe(2 * S);
    expect(LeaderElection.delay(config, won, 109 * S)).toBe(1 * S);
    expect(LeaderElection.delay(config, LeaderElection.initial, 0)).toBe(2 * S);
  });

  it("a standby wakes exactly when the holder's lease expires", () => {
    const seen = firstSeen(held("other", 0), 100 * S);
    expect(LeaderElection.delay(config, seen, 101 * S)).toBe(2 * S);
    expect(LeaderElection.delay(config, seen, 113.5 * S)).toBe(1.5 * S);
    expect(LeaderElection.delay(config, seen, 115 * S)).toBe(2 * S);
  });
});

describe("release", () => {
  it("empties the holder with client-go's release record and stops leading at once", () => {
    const won = LeaderElection.written(config, held("me", 100 * S, 5), "8", 100 * S, 100 * S);
    const released = LeaderElection.release(config, won, 103 * S);
    expect(released.action).toEqual({
      _tag: "Update",
      resourceVersion: "8",
      record: {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: 103 * S,
        renewTime: 103 * S,
        leaseTransitions: 5,
      },
    });
    expect(LeaderElection.isLeading(config, released.state, 103 * S)).toBe(false);
  });

  it("does nothing when not holding", () => {
    expect(LeaderElection.release(config, LeaderElection.initial, 0).action._tag).toBe("Wait");
  });
});

describe("releaseFound (the release again, from the Lease as read after the first was refused)", () => {
  const releasing: LeaderElection.Action = {
    _tag: "Update",
    resourceVersion: "9",
    record: {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: 104 * S,
      renewTime: 104 * S,
      leaseTransitions: 5,
    },
  };
  it.each([
    [
      "still ours (a renewal landed): release it at the version read",
      found(held("me", 103 * S, 5), "9"),
      "Update",
    ],
    ["taken by another: leave it", found(held("other", 103 * S, 5), "9"), "Wait"],
    ["already released: nothing to do", found(held("", 103 * S, 5), "9"), "Wait"],
    ["gone: nothing to do", { _tag: "Absent" } as const, "Wait"],
  ])("%s", (_, observation, tag) => {
    const again = LeaderElection.releaseFound(config, observation, 104 * S);
    expect(again.action._tag).toBe(tag);
    if (tag === "Update") expect(again.action).toEqual(releasing);
    expect(LeaderElection.isLeading(config, again.state, 104 * S)).toBe(false);
  });
});

describe("invalid", () => {
  it.each([
    [{ ...config }, undefined],
    [
      { ...config, renewDeadline: 15 },
      "the lease duration (15 s) must be longer than the renew deadline (15 s)",
    ],
    [{ ...config, retryPeriod: 9 }, "the renew deadline (10 s) must be longer than 1.2 retry periods (9 s)"],
    [{ ...config, identity: "" }, "the identity of a leader-election candidate must not be empty"],
  ])("%j", (given, problem) => {
    expect(LeaderElection.invalid(given)).toBe(problem);
  });
});

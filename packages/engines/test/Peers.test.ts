/**
 * Presence records (docs/behaviour/peering.md#presence-records, docs/behaviour/peering.md#reactions, docs/behaviour/peering.md): defaults of a record, Kopf's representation,
 * the alive/dead boundary, the judgement for higher/same/lower priorities (and expiry), the
 * records written, and the keep-alive interval.
 */
import { assert, describe, it } from "@effect/vitest";
import { IsoTime } from "@kopf/structs";
import * as Result from "effect/Result";
import fc from "fast-check";
import * as Peers from "../src/Peers.ts";

const T = Result.getOrThrow(IsoTime.parse("2020-12-31T23:59:59.123456+00:00"));
const S = 1_000_000;

describe("records", () => {
  it("defaults: priority 0, lifetime 60, lastseen now", () => {
    assert.deepStrictEqual(Peers.fromRecord("some-id", {}, T), {
      id: "some-id",
      priority: 0,
      lifetime: 60,
      lastseen: T,
    });
  });

  it("Kopf's representation", () => {
    assert.strictEqual(
      Peers.describe(Peers.fromRecord("some-id", {}, T)),
      "<Peer some-id: priority=0, lifetime=60, lastseen='2020-12-31T23:59:59.123456+00:00'>",
    );
  });

  it("parses the status, skipping removed entries", () => {
    const status = {
      a: { priority: 10, lifetime: 30, lastseen: "2020-12-31T23:59:00+00:00" },
      b: null,
      c: { priority: "5" },
    };
    assert.deepStrictEqual(
      Peers.fromStatus(status, T).map((p) => [p.id, p.priority, p.lifetime]),
      [
        ["a", 10, 30],
        ["c", 5, 60],
      ],
    );
    assert.deepStrictEqual(Peers.fromStatus(undefined, T), []);
  });

  it.each([
    [59, false],
    [60, true],
    [61, true],
  ])("a 60-second record %s s later is dead: %s", (later, dead) => {
    assert.strictEqual(Peers.isDead(Peers.fromRecord("p", {}, T), T + later * S), dead);
  });

  it("writes Kopf's record", () => {
    assert.deepStrictEqual(Peers.toRecord({ id: "me", priority: 100, lifetime: 600, lastseen: T }), {
      priority: 100,
      lifetime: 600,
      lastseen: "2020-12-31T23:59:59.123456+00:00",
    });
  });
});

describe("judge", () => {
  const peer = (id: string, priority: number, lifetime = 60, ago = 0): Peers.Peer => ({
    id,
    priority,
    lifetime,
    lastseen: T - ago * S,
  });
  it.each([
    ["no peers", [], "Resume", undefined],
    ["only self", [peer("me", 0)], "Resume", undefined],
    ["a lower peer", [peer("low", -1)], "Resume", undefined],
    ["a higher peer", [peer("high", 10, 60, 20)], "Pause", 40],
    ["a same-priority peer", [peer("same", 0, 60, 50)], "Conflict", 10],
    ["higher and same", [peer("high", 10, 60), peer("same", 0, 30)], "Pause", 30],
    ["an expired higher peer", [peer("high", 10, 60, 60)], "Resume", undefined],
  ] as const)("%s ⇒ %s", (_, peers, verdict, wake) => {
    const judged = Peers.judge({ peers, identity: "me", priority: 0, now: T });
    assert.strictEqual(judged.verdict._tag, verdict);
    assert.strictEqual(judged.wake, wake);
  });

  it("reports dead peers (including an own stale record) for cleaning", () => {
    const judged = Peers.judge({
      peers: [peer("old", 5, 10, 11), peer("me", 0, 10, 20)],
      identity: "me",
      priority: 0,
      now: T,
    });
    assert.deepStrictEqual(
      judged.dead.map((p) => p.id),
      ["old", "me"],
    );
  });

  it("property: pauses exactly when a live foreign peer has a priority ≥ ours", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ priority: fc.integer({ min: -5, max: 5 }), ago: fc.integer({ min: 0, max: 120 }) }),
        ),
        fc.integer({ min: -5, max: 5 }),
        (specs, priority) => {
          const peers = specs.map((s, i) => peer(`p${i}`, s.priority, 60, s.ago));
          const judged = Peers.judge({ peers, identity: "me", priority, now: T });
          const blocking = specs.some((s) => s.priority >= priority && s.ago < 60);
          return (judged.verdict._tag !== "Resume") === blocking && (judged.wake !== undefined) === blocking;
        },
      ),
    );
  });
});

describe("keepAliveInterval", () => {
  it.each([
    [60, 5, 55],
    [60, 10, 50],
    [8, 10, 1],
    [1, 5, 1],
    [0, 5, 1],
  ])("lifetime %s, jitter %s ⇒ %s", (lifetime, jitter, expected) => {
    assert.strictEqual(Peers.keepAliveInterval(lifetime, jitter), expected);
  });
});

// Covers the pure namespace revision (docs/behaviour/watching.md#namespaces): population from listed bodies and events,
// deletion via DELETED or via deletionTimestamp with False conditions, termination pending with
// True conditions (logged), non-matching names ignored; and the observer fold over watcher items:
// the first Listed makes the set ready, relistings replace the set (deleted-while-away names are
// dropped), and 403 on listing/watching falls back with Kopf's warnings and stops observing.

import { assert, describe, it } from "@effect/vitest";
import type { RawBody, RawEventType } from "@kopf/structs";
import * as NamespaceRevision from "../src/NamespaceRevision.ts";
import type * as Watcher from "../src/Watcher.ts";

const matches = (name: string) => name.startsWith("ns"); // the pattern "ns*"
const patterns: NamespaceRevision.Patterns = { matches, specific: new Set(["ns9", "ns1"]) };
const b1: RawBody = { metadata: { name: "ns1" } };
const b2: RawBody = { metadata: { name: "ns2" } };
const marked: RawBody = { metadata: { name: "ns1", deletionTimestamp: "..." } };
const trueCondition: RawBody = {
  metadata: { name: "ns1", deletionTimestamp: "..." },
  status: {
    conditions: [{ type: "Whatever", status: "True", reason: "SomeReason", message: "Some message" }],
  },
};
const falseCondition: RawBody = {
  metadata: { name: "ns1", deletionTimestamp: "..." },
  status: { conditions: [{ type: "Whatever", status: "False" }] },
};

const apply = (events: ReadonlyArray<[RawEventType | null, RawBody]>) => {
  let namespaces: ReadonlySet<string> = new Set();
  const blockers: Array<NamespaceRevision.Blocker> = [];
  for (const [type, object] of events) {
    const revised = NamespaceRevision.revise(namespaces, { type, object }, matches);
    namespaces = revised.namespaces;
    blockers.push(...revised.blockers);
  }
  return { namespaces: [...namespaces].sort(), blockers };
};

describe("NamespaceRevision.revise", () => {
  it.each([
    { name: "initial population", events: [[null, b1]], expected: ["ns1"] },
    {
      name: "additional population",
      events: [
        [null, b1],
        [null, b2],
      ],
      expected: ["ns1", "ns2"],
    },
    {
      name: "additional population by events",
      events: [
        [null, b1],
        ["ADDED", b2],
      ],
      expected: ["ns1", "ns2"],
    },
    {
      name: "deletionTimestamp without conditions keeps it",
      events: [
        [null, b1],
        [null, marked],
      ],
      expected: ["ns1"],
    },
    {
      name: "deletionTimestamp with True conditions keeps it",
      events: [
        [null, b1],
        ["MODIFIED", trueCondition],
      ],
      expected: ["ns1"],
    },
    {
      name: "deletionTimestamp with False conditions removes it",
      events: [
        [null, b1],
        ["MODIFIED", falseCondition],
      ],
      expected: [],
    },
    {
      name: "DELETED removes it",
      events: [
        [null, b1],
        ["DELETED", b1],
      ],
      expected: [],
    },
    {
      name: "DELETED removes it even with True conditions",
      events: [
        [null, b1],
        ["DELETED", trueCondition],
      ],
      expected: [],
    },
    { name: "mismatching names are ignored", events: [[null, { metadata: { name: "def1" } }]], expected: [] },
    { name: "bodies without names are ignored", events: [[null, { metadata: {} }]], expected: [] },
  ] as ReadonlyArray<{
    name: string;
    events: ReadonlyArray<[RawEventType | null, RawBody]>;
    expected: ReadonlyArray<string>;
  }>)("$name", ({ events, expected }) => {
    assert.deepStrictEqual(apply(events).namespaces, expected);
  });

  it("reports termination blockers with Kopf's wording", () => {
    const { blockers } = apply([
      [null, b1],
      ["MODIFIED", trueCondition],
    ]);
    assert.deepStrictEqual(blockers, [{ namespace: "ns1", reason: "SomeReason", message: "Some message" }]);
    const fold = NamespaceRevision.step(
      { ...NamespaceRevision.initial, namespaces: new Set(["ns1"]), staging: null, ready: true },
      { _tag: "Event", type: "MODIFIED", object: trueCondition },
      patterns,
    );
    assert.deepStrictEqual(fold.logs.debug, [
      'Namespace "ns1" termination pending: SomeReason: Some message',
    ]);
  });

  it("no blockers are reported for False conditions", () => {
    assert.deepStrictEqual(
      apply([
        [null, b1],
        ["MODIFIED", falseCondition],
      ]).blockers,
      [],
    );
  });
});

const fold = (items: ReadonlyArray<Watcher.Item>) => {
  let state = NamespaceRevision.initial;
  const warnings: Array<string> = [];
  for (const item of items) {
    const next = NamespaceRevision.step(state, item, patterns);
    state = next.state;
    warnings.push(...next.logs.warnings);
  }
  return { ...state, names: [...state.namespaces].sort(), warnings };
};
const listed = (object: RawBody): Watcher.Item => ({ _tag: "Event", type: null, object });
const LISTED: Watcher.Item = { _tag: "Listed", resourceVersion: "1" };
const problem = (reason: "ListFailed" | "WatchFailed" | "Gone", failureReason: string): Watcher.Item => ({
  _tag: "Problem",
  reason,
  message: "…",
  recovery: reason === "WatchFailed" ? "resume" : "relist",
  delayMillis: 100,
  failure: { reason: failureReason, message: "…" },
});

describe("NamespaceRevision.step", () => {
  it("is not ready until the first listing ends", () => {
    const during = fold([listed(b1)]);
    assert.isFalse(during.ready);
    assert.deepStrictEqual(during.names, []);
    const after = fold([listed(b1), listed(b2), LISTED]);
    assert.isTrue(after.ready);
    assert.deepStrictEqual(after.names, ["ns1", "ns2"]);
  });

  it("follows creations and deletions after the listing", () => {
    const state = fold([
      listed(b1),
      LISTED,
      { _tag: "Event", type: "ADDED", object: b2 },
      { _tag: "Event", type: "DELETED", object: b1 },
    ]);
    assert.deepStrictEqual(state.names, ["ns2"]);
  });

  it("a relisting replaces the set: namespaces deleted while away are dropped, terminating ones kept", () => {
    const state = fold([
      listed(b1),
      listed(b2),
      listed({ metadata: { name: "ns3" } }),
      LISTED,
      problem("Gone", "Gone"),
      listed(trueCondition), // ns1 terminating with a blocker: kept
      listed({ metadata: { name: "ns4" } }),
      LISTED, // ns2 and ns3 are gone
    ]);
    assert.deepStrictEqual(state.names, ["ns1", "ns4"]);
  });

  it("a failed relisting discards its partial set", () => {
    const state = fold([
      listed(b1),
      LISTED,
      problem("Gone", "Gone"),
      listed(b2),
      problem("ListFailed", "ServerError"),
      listed(b1),
      LISTED,
    ]);
    assert.deepStrictEqual(state.names, ["ns1"]);
  });

  it("403 on listing falls back to the specific namespaces and stops", () => {
    const state = fold([problem("ListFailed", "Forbidden"), listed(b2), LISTED]);
    assert.isTrue(state.ready);
    assert.isTrue(state.stopped);
    assert.deepStrictEqual(state.names, ["ns1", "ns9"]);
    assert.deepStrictEqual(state.warnings, [
      'Not enough permissions to list namespaces. Falling back to a list of namespaces which are assumed to exist: ["ns1","ns9"]',
    ]);
  });

  it("403 on watching keeps the listed set and stops", () => {
    const state = fold([
      listed(b1),
      LISTED,
      problem("WatchFailed", "Forbidden"),
      { _tag: "Event", type: "ADDED", object: b2 },
    ]);
    assert.isTrue(state.stopped);
    assert.deepStrictEqual(state.names, ["ns1"]);
    assert.strictEqual(state.warnings.length, 1);
    assert.include(state.warnings[0] ?? "", "Not enough permissions to watch for namespaces");
  });

  it("other problems change nothing", () => {
    const state = fold([listed(b1), LISTED, problem("WatchFailed", "TransportError")]);
    assert.deepStrictEqual(state.names, ["ns1"]);
    assert.isFalse(state.stopped);
  });
});

// Covers the gate between the namespace observer and the watches as a pure state: a set is
// admitted at once without followers, else once every follower acknowledged it (or left), a
// newer set supersedes one still waiting, nothing is watchable while a pause is set or before
// the first set. Properties over random sequences of operations: nothing is watchable while a
// pause is set; an admitted set was acknowledged by every follower that was waited for; once
// every follower acknowledged the latest set, it is admitted.
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as WatchGate from "../../src/internal/watchGate.ts";

const set = (...names: Array<string | null>): WatchGate.Namespaces => new Set(names);
const names = (namespaces: WatchGate.Namespaces | undefined) =>
  namespaces === undefined ? undefined : [...namespaces].map(String).sort();

type Step =
  | { readonly observe: ReadonlyArray<string | null> }
  | { readonly join: number }
  | { readonly acknowledge: number; readonly seq: number }
  | { readonly leave: number }
  | { readonly pause: number; readonly paused: boolean };

const apply = (state: WatchGate.State, step: Step): WatchGate.State => {
  if ("observe" in step) return WatchGate.observe(state, new Set(step.observe));
  if ("join" in step) return WatchGate.join(state, step.join);
  if ("acknowledge" in step) return WatchGate.acknowledge(state, step.acknowledge, step.seq);
  if ("leave" in step) return WatchGate.leave(state, step.leave);
  return WatchGate.pause(state, step.pause, step.paused);
};

const run = (steps: ReadonlyArray<Step>) => steps.reduce(apply, WatchGate.initial);

describe("WatchGate", () => {
  it.each<[string, ReadonlyArray<Step>, ReadonlyArray<string> | undefined, ReadonlyArray<string>]>([
    ["nothing observed yet", [], undefined, []],
    ["observed, no followers: admitted at once", [{ observe: ["ns1"] }], ["ns1"], ["ns1"]],
    ["cluster-wide", [{ observe: [null] }], ["null"], ["null"]],
    ["a follower joins before the first set: it waits", [{ join: 1 }, { observe: ["ns1"] }], undefined, []],
    [
      "the follower acknowledges it: admitted",
      [{ join: 1 }, { observe: ["ns1"] }, { acknowledge: 1, seq: 1 }],
      ["ns1"],
      ["ns1"],
    ],
    [
      "a new set waits for the follower; the old one stays",
      [{ observe: ["ns1"] }, { join: 1 }, { acknowledge: 1, seq: 1 }, { observe: ["ns1", "ns2"] }],
      ["ns1"],
      ["ns1"],
    ],
    [
      "a follower joining does not take back what is admitted",
      [{ observe: ["ns1"] }, { join: 1 }],
      ["ns1"],
      ["ns1"],
    ],
    [
      "two followers: one acknowledgement is not enough",
      [{ join: 1 }, { join: 2 }, { observe: ["ns1"] }, { acknowledge: 1, seq: 1 }],
      undefined,
      [],
    ],
    [
      "two followers: both acknowledged",
      [
        { join: 1 },
        { join: 2 },
        { observe: ["ns1"] },
        { acknowledge: 2, seq: 1 },
        { acknowledge: 1, seq: 1 },
      ],
      ["ns1"],
      ["ns1"],
    ],
    [
      "the follower that was waited for leaves",
      [{ join: 1 }, { join: 2 }, { observe: ["ns1"] }, { acknowledge: 1, seq: 1 }, { leave: 2 }],
      ["ns1"],
      ["ns1"],
    ],
    [
      "an acknowledgement of an older set does not admit a newer one",
      [{ join: 1 }, { observe: ["ns1"] }, { observe: ["ns2"] }, { acknowledge: 1, seq: 1 }],
      undefined,
      [],
    ],
    [
      "an acknowledgement of the newer set admits it (the older one is skipped)",
      [{ join: 1 }, { observe: ["ns1"] }, { observe: ["ns2"] }, { acknowledge: 1, seq: 2 }],
      ["ns2"],
      ["ns2"],
    ],
    [
      "an unknown follower's acknowledgement is ignored",
      [{ join: 1 }, { observe: ["ns1"] }, { acknowledge: 9, seq: 1 }],
      undefined,
      [],
    ],
    [
      "a pause set before the acknowledgement: admitted, not watchable",
      [{ join: 1 }, { observe: ["ns1"] }, { pause: 5, paused: true }, { acknowledge: 1, seq: 1 }],
      ["ns1"],
      [],
    ],
    [
      "the pause cleared: watchable",
      [{ observe: ["ns1"] }, { pause: 5, paused: true }, { pause: 5, paused: false }],
      ["ns1"],
      ["ns1"],
    ],
    [
      "one of two pauses cleared: still nothing",
      [
        { observe: ["ns1"] },
        { pause: 5, paused: true },
        { pause: 6, paused: true },
        { pause: 5, paused: false },
      ],
      ["ns1"],
      [],
    ],
    [
      "a pause set twice and cleared once: cleared",
      [
        { observe: ["ns1"] },
        { pause: 5, paused: true },
        { pause: 5, paused: true },
        { pause: 5, paused: false },
      ],
      ["ns1"],
      ["ns1"],
    ],
    ["an empty set is admitted as such", [{ observe: [] }], [], []],
  ])("%s", (_, steps, admitted, watchable) => {
    const state = run(steps);
    assert.deepStrictEqual(names(state.admitted), admitted === undefined ? undefined : [...admitted]);
    assert.deepStrictEqual(names(WatchGate.watchable(state)), [...watchable]);
  });

  it("observed sets are numbered from 1", () => {
    const state = run([{ observe: ["a"] }, { observe: ["b"] }, { observe: ["c"] }]);
    assert.strictEqual(state.observed?.seq, 3);
    assert.deepStrictEqual(names(WatchGate.observe(WatchGate.initial, set("x")).admitted), ["x"]);
  });

  const ids = fc.integer({ min: 1, max: 3 });
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ observe: fc.subarray(["a", "b", "c", null]) }),
    fc.record({ join: ids }),
    fc.record({ acknowledge: ids, seq: fc.integer({ min: 0, max: 8 }) }),
    fc.record({ leave: ids }),
    fc.record({ pause: ids, paused: fc.boolean() }),
  );

  it("nothing is watchable while a pause is set", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const state = run(steps);
        if (state.pauses.size > 0) assert.strictEqual(WatchGate.watchable(state).size, 0);
        else assert.deepStrictEqual(names(WatchGate.watchable(state)), names(state.admitted) ?? []);
      }),
    ));

  it("a set becomes admitted only when every follower has acknowledged it", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = WatchGate.initial;
        for (const next of steps) {
          const before = state.admitted;
          state = apply(state, next);
          if (state.admitted === before) continue;
          // The newly admitted set is the latest observed one, and nobody waited for lags behind.
          assert.strictEqual(state.admitted, state.observed?.namespaces);
          for (const acknowledged of state.followers.values()) {
            assert.isAtLeast(acknowledged, state.observed?.seq ?? 0);
          }
        }
      }),
    ));

  it("once every follower acknowledged the latest set, it is admitted", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = run(steps);
        const latest = state.observed;
        for (const id of state.followers.keys()) state = WatchGate.acknowledge(state, id, latest?.seq ?? 0);
        assert.strictEqual(state.admitted, latest?.namespaces);
      }),
    ));
});

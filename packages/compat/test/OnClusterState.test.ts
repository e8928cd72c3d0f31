/**
 * The on-cluster state of an object and its comparison: only Kopf's annotations are taken, in key
 * order; timestamps in Kopf's format are masked (whatever the separator), others are not; any
 * other byte difference — spacing, field order, values — is reported with its path.
 */
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import { OnClusterState } from "../src/index.ts";

const P = OnClusterState.PREFIX;

const state = (annotations: Record<string, string>, status: unknown = {}, finalizers: Array<string> = []) =>
  OnClusterState.stateOf({ metadata: { annotations, finalizers }, status });

describe("stateOf", () => {
  it("keeps Kopf's annotations only, sorted, with finalizers and status", () => {
    assert.deepStrictEqual(
      OnClusterState.stateOf({
        metadata: { annotations: { [`${P}b`]: "2", other: "x", [`${P}a`]: "1" }, finalizers: ["f"] },
        status: { s: 1 },
      }),
      { annotations: { [`${P}a`]: "1", [`${P}b`]: "2" }, finalizers: ["f"], status: { s: 1 } },
    );
    assert.deepStrictEqual(OnClusterState.stateOf(undefined), {
      annotations: {},
      finalizers: [],
      status: null,
    });
  });
});

describe("differences", () => {
  it.each([
    [
      '{"started":"2026-11-30T07:59:41.025163+00:00","retries":1}',
      '{"started":"2020-01-01T00:00:00.000000+00:00","retries":1}',
      0,
    ],
    ['{"started": "2026-11-30T07:59:41.025163+00:00"}', '{"started": "2020-01-01T00:00:00.000000+00:00"}', 0],
    ['{"delayed":"2026-11-30T07:59:41.025163"}', '{"delayed":"2020-01-01T00:00:00.000001"}', 0],
    ['{"started":"2026-11-30T07:59:41.025163+00:00"}', '{"started": "2026-11-30T07:59:41.025163+00:00"}', 1],
    ['{"started":"2026-11-30T07:59:41Z"}', '{"started":"2026-11-30T07:59:42Z"}', 1],
    ['{"retries":1,"success":false}', '{"success":false,"retries":1}', 1],
    ['{"retries":1}', '{"retries":2}', 1],
  ])("%s vs %s: %d difference(s)", (left, right, count) => {
    assert.lengthOf(
      OnClusterState.differences(state({ [`${P}h`]: left }), state({ [`${P}h`]: right })),
      count,
    );
  });

  it("never masks the last-handled configuration", () => {
    const a = state({ [`${P}last-handled-configuration`]: '{"spec":{"started":"2026-11-30T07:59:41Z"}}\n' });
    const b = state({ [`${P}last-handled-configuration`]: '{"spec":{"started":"2020-01-01T00:00:00Z"}}\n' });
    assert.lengthOf(OnClusterState.differences(a, b), 1);
  });

  it("reports status and finalizer differences by path", () => {
    assert.deepStrictEqual(
      OnClusterState.differences(state({}, { a: { b: 1 } }, ["f"]), state({}, { a: { b: 2 } }, [])),
      [
        { path: "/finalizers/0", left: "f", right: undefined },
        { path: "/status/a/b", left: 1, right: 2 },
      ],
    );
  });

  it("property: a state never differs from itself, and masking is idempotent", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.string()), fc.jsonValue(), (annotations, status) => {
        const s = state(
          Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])),
          status,
        );
        return (
          OnClusterState.differences(s, s).length === 0 &&
          JSON.stringify(OnClusterState.masked(OnClusterState.masked(s))) ===
            JSON.stringify(OnClusterState.masked(s))
        );
      }),
    );
  });
});

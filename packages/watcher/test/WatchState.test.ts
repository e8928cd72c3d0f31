// Covers the pure watch state machine: the decision table for every input (resume, relist,
// reconnect, emit, remember the resourceVersion), the backoff sequence, and invariants over random
// input sequences (only 410/ERROR/list failures relist; events are emitted once and in order;
// bookmarks are never emitted; the remembered resourceVersion is the last one seen).
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import * as WatchState from "../src/WatchState.ts";

type In = WatchState.Input<string>;
const config: WatchState.Config = { reconnectBackoffMillis: 100, maxBackoffMillis: 1_000 };
const watching = (over: Partial<WatchState.WatchState> = {}): WatchState.WatchState => ({
  phase: "watching",
  resourceVersion: "10",
  failures: 0,
  received: 0,
  ...over,
});
const transport: WatchState.Failure = { reason: "TransportError", message: "socket hang up" };

interface Row {
  readonly name: string;
  readonly state: WatchState.WatchState;
  readonly input: In;
  readonly action: WatchState.Action;
  readonly emitted: ReadonlyArray<string>;
  readonly rv: string | undefined;
  readonly failures: number;
  readonly phase: "listing" | "watching";
}

const rows: ReadonlyArray<Row> = [
  {
    name: "a listed item is emitted with type null",
    state: WatchState.initial,
    input: { _tag: "ListItem", object: "a" },
    action: { _tag: "Continue" },
    emitted: ["Event:null:a"],
    rv: undefined,
    failures: 0,
    phase: "listing",
  },
  {
    name: "the end of a listing emits Listed and watches from the list's version",
    state: { ...WatchState.initial, failures: 3 },
    input: { _tag: "Listed", resourceVersion: "7" },
    action: { _tag: "Watch", resourceVersion: "7", delayMillis: 0 },
    emitted: ["Listed:7"],
    rv: "7",
    failures: 0,
    phase: "watching",
  },
  {
    name: "a failed listing relists after the reconnect backoff",
    state: WatchState.initial,
    input: { _tag: "ListFailed", failure: transport },
    action: { _tag: "Relist", delayMillis: 100 },
    emitted: ["Problem:ListFailed:relist:100"],
    rv: undefined,
    failures: 1,
    phase: "listing",
  },
  {
    name: "repeated listing failures back off exponentially",
    state: { ...WatchState.initial, failures: 3 },
    input: { _tag: "ListFailed", failure: { reason: "TooManyRequests", message: "slow down", status: 429 } },
    action: { _tag: "Relist", delayMillis: 800 },
    emitted: ["Problem:ListFailed:relist:800"],
    rv: undefined,
    failures: 4,
    phase: "listing",
  },
  {
    name: "an event is emitted and advances the resourceVersion",
    state: watching({ failures: 2 }),
    input: { _tag: "Event", type: "MODIFIED", object: "a", resourceVersion: "11" },
    action: { _tag: "Continue" },
    emitted: ["Event:MODIFIED:a"],
    rv: "11",
    failures: 0,
    phase: "watching",
  },
  {
    name: "an event without a resourceVersion keeps the last one",
    state: watching(),
    input: { _tag: "Event", type: "ADDED", object: "a", resourceVersion: undefined },
    action: { _tag: "Continue" },
    emitted: ["Event:ADDED:a"],
    rv: "10",
    failures: 0,
    phase: "watching",
  },
  {
    name: "a bookmark advances the resourceVersion and is never emitted",
    state: watching({ failures: 1 }),
    input: { _tag: "Bookmark", resourceVersion: "20" },
    action: { _tag: "Continue" },
    emitted: [],
    rv: "20",
    failures: 0,
    phase: "watching",
  },
  {
    name: "an ERROR event with 410 relists once after the reconnect backoff",
    state: watching({ received: 4 }),
    input: {
      _tag: "ErrorEvent",
      status: { code: 410, reason: "Expired", message: "too old resource version" },
    },
    action: { _tag: "Relist", delayMillis: 100 },
    emitted: ["Problem:Gone:relist:100"],
    rv: "10",
    failures: 1,
    phase: "listing",
  },
  {
    name: "an ERROR event with reason Expired and no code is a 410",
    state: watching({ failures: 5 }),
    input: { _tag: "ErrorEvent", status: { reason: "Expired" } },
    action: { _tag: "Relist", delayMillis: 100 },
    emitted: ["Problem:Gone:relist:100"],
    rv: "10",
    failures: 6,
    phase: "listing",
  },
  {
    name: "another ERROR event is a value, then a relist after backoff",
    state: watching({ failures: 1 }),
    input: { _tag: "ErrorEvent", status: { code: 500, reason: "InternalError", message: "boom" } },
    action: { _tag: "Relist", delayMillis: 200 },
    emitted: ["Problem:ErrorEvent:relist:200"],
    rv: "10",
    failures: 2,
    phase: "listing",
  },
  {
    name: "an unknown event type is reported and skipped",
    state: watching(),
    input: { _tag: "UnknownEvent", type: "WEIRD" },
    action: { _tag: "Continue" },
    emitted: ["Problem:UnknownEvent:continue:0"],
    rv: "10",
    failures: 0,
    phase: "watching",
  },
  {
    name: "a stream that ends after events is resumed at once, without a relist",
    state: watching({ received: 3 }),
    input: { _tag: "StreamEnded" },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 0 },
    emitted: [],
    rv: "10",
    failures: 0,
    phase: "watching",
  },
  {
    name: "a stream that ends without events is resumed after the backoff",
    state: watching(),
    input: { _tag: "StreamEnded" },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 100 },
    emitted: [],
    rv: "10",
    failures: 0,
    phase: "watching",
  },
  {
    name: "a broken stream that made progress resumes at once",
    state: watching({ received: 1 }),
    input: { _tag: "StreamFailed", failure: transport },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 0 },
    emitted: ["Problem:WatchFailed:resume:0"],
    rv: "10",
    failures: 1,
    phase: "watching",
  },
  {
    name: "repeated watch failures without progress back off",
    state: watching({ failures: 2 }),
    input: { _tag: "StreamFailed", failure: { reason: "Timeout", message: "timed out" } },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 400 },
    emitted: ["Problem:WatchFailed:resume:400"],
    rv: "10",
    failures: 3,
    phase: "watching",
  },
  {
    name: "a 429 on a watch request waits at least its Retry-After",
    state: watching({ received: 3 }),
    input: {
      _tag: "StreamFailed",
      failure: { reason: "TooManyRequests", message: "slow down", status: 429, retryAfterSeconds: 7 },
    },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 7_000 },
    emitted: ["Problem:WatchFailed:resume:7000"],
    rv: "10",
    failures: 1,
    phase: "watching",
  },
  {
    name: "a 429 on a listing waits at least its Retry-After",
    state: WatchState.initial,
    input: {
      _tag: "ListFailed",
      failure: { reason: "TooManyRequests", message: "slow down", status: 429, retryAfterSeconds: 3 },
    },
    action: { _tag: "Relist", delayMillis: 3_000 },
    emitted: ["Problem:ListFailed:relist:3000"],
    rv: undefined,
    failures: 1,
    phase: "listing",
  },
  {
    name: "a watch request answered 410 relists",
    state: watching(),
    input: { _tag: "StreamFailed", failure: { reason: "Gone", message: "too old", status: 410 } },
    action: { _tag: "Relist", delayMillis: 100 },
    emitted: ["Problem:Gone:relist:100"],
    rv: "10",
    failures: 1,
    phase: "listing",
  },
  {
    name: "the inactivity watchdog reconnects from the last resourceVersion",
    state: watching({ received: 9, failures: 1 }),
    input: { _tag: "Inactive", seconds: 70 },
    action: { _tag: "Watch", resourceVersion: "10", delayMillis: 0 },
    emitted: ["Problem:Inactive:resume:0"],
    rv: "10",
    failures: 1,
    phase: "watching",
  },
];

const show = (output: WatchState.Output<string>): string => {
  switch (output._tag) {
    case "Event":
      return `Event:${output.type}:${output.object}`;
    case "Listed":
      return `Listed:${output.resourceVersion}`;
    case "Problem":
      return `Problem:${output.reason}:${output.recovery}:${output.delayMillis}`;
  }
};

describe("WatchState.step", () => {
  it.each(rows)("$name", (row) => {
    const result = WatchState.step(row.state, row.input, config);
    assert.deepStrictEqual(result.action, row.action);
    assert.deepStrictEqual(result.emit.map(show), row.emitted);
    assert.strictEqual(result.state.resourceVersion, row.rv);
    assert.strictEqual(result.state.failures, row.failures);
    assert.strictEqual(result.state.phase, row.phase);
  });

  it("keeps the failure that caused a problem", () => {
    const result = WatchState.step(watching(), { _tag: "StreamFailed", failure: transport }, config);
    const first = result.emit[0];
    assert.strictEqual(first?._tag, "Problem");
    assert.deepStrictEqual(first?._tag === "Problem" ? first.failure : undefined, transport);
    assert.include(first?._tag === "Problem" ? first.message : "", "socket hang up");
  });

  it("a new watch request starts counting received events afresh", () => {
    const ended = WatchState.step(watching({ received: 5 }), { _tag: "StreamEnded" }, config);
    assert.strictEqual(ended.state.received, 0);
    const quiet = WatchState.step(ended.state, { _tag: "StreamEnded" }, config);
    assert.deepStrictEqual(quiet.action, { _tag: "Watch", resourceVersion: "10", delayMillis: 100 });
  });
});

describe("WatchState.backoff", () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [50, 1_000],
    [0, 100],
  ])("failure #%i waits %i ms", (failures, expected) => {
    assert.strictEqual(WatchState.backoff(config, failures), expected);
  });

  it("never goes below the reconnect backoff even with a smaller maximum", () => {
    assert.strictEqual(WatchState.backoff({ reconnectBackoffMillis: 500, maxBackoffMillis: 10 }, 4), 500);
  });
});

const failureArb: fc.Arbitrary<WatchState.Failure> = fc.record({
  reason: fc.constantFrom("TransportError", "Timeout", "ServerError", "TooManyRequests", "Forbidden", "Gone"),
  message: fc.string(),
});
const rvArb = fc.option(fc.nat({ max: 1000 }).map(String), { nil: undefined });
const inputArb: fc.Arbitrary<In> = fc.oneof(
  fc.record({ _tag: fc.constant("ListItem" as const), object: fc.string() }),
  fc.record({ _tag: fc.constant("Listed" as const), resourceVersion: rvArb }),
  fc.record({ _tag: fc.constant("ListFailed" as const), failure: failureArb }),
  fc.record({
    _tag: fc.constant("Event" as const),
    type: fc.constantFrom("ADDED" as const, "MODIFIED" as const, "DELETED" as const),
    object: fc.string(),
    resourceVersion: rvArb,
  }),
  fc.record({ _tag: fc.constant("Bookmark" as const), resourceVersion: rvArb }),
  fc.record({
    _tag: fc.constant("ErrorEvent" as const),
    status: fc.record({
      code: fc.constantFrom(410, 500, 403, undefined),
      reason: fc.constantFrom("Expired", "Gone", "InternalError", undefined),
    }),
  }),
  fc.record({ _tag: fc.constant("UnknownEvent" as const), type: fc.string() }),
  fc.constant({ _tag: "StreamEnded" as const }),
  fc.record({ _tag: fc.constant("StreamFailed" as const), failure: failureArb }),
  fc.record({ _tag: fc.constant("Inactive" as const), seconds: fc.nat() }),
);
const configArb = fc.record({
  reconnectBackoffMillis: fc.nat({ max: 10_000 }),
  maxBackoffMillis: fc.nat({ max: 100_000 }),
});

const run = (inputs: ReadonlyArray<In>, cfg: WatchState.Config) => {
  let state = WatchState.initial;
  const steps: Array<WatchState.Step<string>> = [];
  for (const input of inputs) {
    const result = WatchState.step(state, input, cfg);
    steps.push(result);
    state = result.state;
  }
  return { state, steps };
};

describe("WatchState invariants", () => {
  it("relists only on 410, ERROR events and failed listings", () => {
    fc.assert(
      fc.property(fc.array(inputArb), configArb, (inputs, cfg) => {
        const { steps } = run(inputs, cfg);
        return steps.every((result, i) => {
          if (result.action._tag !== "Relist") return true;
          const input = inputs[i];
          return (
            input?._tag === "ErrorEvent" ||
            input?._tag === "ListFailed" ||
            (input?._tag === "StreamFailed" && input.failure.reason === "Gone")
          );
        });
      }),
    );
  });

  it("emits every event and listed item exactly once, in order, and never a bookmark", () => {
    fc.assert(
      fc.property(fc.array(inputArb), configArb, (inputs, cfg) => {
        const { steps } = run(inputs, cfg);
        const emitted = steps.flatMap((s) => s.emit).filter((o) => o._tag === "Event");
        const expected = inputs.filter((i) => i._tag === "Event" || i._tag === "ListItem");
        return (
          emitted.length === expected.length &&
          emitted.every(
            (o, i) => o._tag === "Event" && o.object === (expected[i] as { object: string }).object,
          )
        );
      }),
    );
  });

  it("remembers the last resourceVersion seen", () => {
    fc.assert(
      fc.property(fc.array(inputArb), configArb, (inputs, cfg) => {
        const { state } = run(inputs, cfg);
        let expected: string | undefined;
        for (const input of inputs) {
          if (input._tag === "Listed") expected = input.resourceVersion;
          if ((input._tag === "Event" || input._tag === "Bookmark") && input.resourceVersion !== undefined) {
            expected = input.resourceVersion;
          }
        }
        return state.resourceVersion === expected;
      }),
    );
  });

  it("resumes from the remembered resourceVersion and keeps delays within bounds", () => {
    fc.assert(
      fc.property(fc.array(inputArb), configArb, (inputs, cfg) => {
        const { steps } = run(inputs, cfg);
        const ceiling = Math.max(cfg.reconnectBackoffMillis, cfg.maxBackoffMillis);
        return steps.every((s) => {
          if (s.action._tag === "Continue") return true;
          if (s.action._tag === "Watch" && s.action.resourceVersion !== s.state.resourceVersion) return false;
          return s.action.delayMillis >= 0 && s.action.delayMillis <= ceiling;
        });
      }),
    );
  });
});

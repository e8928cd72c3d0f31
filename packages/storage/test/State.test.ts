// Covers handler states and the state of all handlers (docs/behaviour/progress.md#handler-state, vectors docs/behaviour/progress.md#handler-state, ported from
// Kopf's tests/persistence/test_states.py): passive/active states, purposes, counts and extras,
// Kopf issue #601, started/runtime/finished/sleeping/awakened/delayed/retries, outcomes, subrefs,
// results delivery, purging, and properties of the transitions.
import { describe, expect, it } from "@effect/vitest";
import { IsoTime, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import * as HandlerState from "../src/HandlerState.ts";
import * as Outcome from "../src/Outcome.ts";
import * as SmartProgressStorage from "../src/SmartProgressStorage.ts";
import * as State from "../src/State.ts";
import * as StatusProgressStorage from "../src/StatusProgressStorage.ts";

const TSB_ISO = "2020-12-31T23:59:59.000000+00:00";
const TS0_ISO = "2020-12-31T23:59:59.123456+00:00";
const TS1_ISO = "2021-01-01T00:00:00.123456+00:00";
const TSA_ISO = "2020-12-31T23:59:59.999999+00:00";
const time = (iso: string): number => Result.getOrThrow(IsoTime.parse(iso));
const TSB = time(TSB_ISO);
const TS0 = time(TS0_ISO);
const TS1 = time(TS1_ISO);
const TSA = time(TSA_ISO);
const NOW = TS0;

const REASONS = ["create", "update", "delete", "resume"] as const;
const handler = { id: "some-id" };
const storage = StatusProgressStorage.make();

type PlainPatch = { [key: string]: unknown };
const withRecord = (record: object): RawBody =>
  ({ status: { kopf: { progress: { "some-id": record } } } }) as RawBody;
const load = (body: RawBody, handlers: ReadonlyArray<State.HandlerRef> = [handler]) =>
  Result.getOrThrow(State.fromStorage({ body, storage, handlers, now: NOW }));
const outcomes = (state: State.State, map: Record<string, Outcome.Outcome>) =>
  Result.getOrThrow(State.withOutcomes(state, map, NOW));
const stored = (state: State.State, body: RawBody = {}): Record<string, unknown> => {
  const patch: PlainPatch = {};
  State.store(state, { body, patch, storage });
  return (patch as { status: { kopf: { progress: Record<string, Record<string, unknown>> } } }).status.kopf
    .progress["some-id"] as Record<string, unknown>;
};
const get = (state: State.State, id = "some-id") => {
  const found = state.handlers.get(id);
  if (found === undefined) throw new Error(`no state for ${id}`);
  return found;
};

const EMPTY_BODIES: ReadonlyArray<readonly [string, RawBody]> = [
  ["{}", {}],
  ["empty status", { status: {} }],
  ["empty kopf", { status: { kopf: {} } }],
  ["empty progress", { status: { kopf: { progress: {} } } }],
];

const expectEmpty = (state: State.State) => {
  expect(state.handlers.size).toBe(0);
  expect(state.purpose).toBeNull();
  expect(State.isDone(state)).toBe(true);
  expect(State.delay(state, NOW)).toBeNull();
  expect(State.delays(state, NOW)).toEqual([]);
  expect(State.counts(state)).toEqual({ success: 0, failure: 0, running: 0 });
  expect(State.extras(state)).toEqual({});
};

describe("State creation", () => {
  it("is empty from scratch", () => expectEmpty(State.empty()));

  it.each(EMPTY_BODIES)("is empty from an empty storage (%s)", (_, body) => expectEmpty(load(body)));

  it.each([
    ["{}", {}],
    ["success", { success: true }],
    ["failure", { failure: true }],
  ])("ignores records of handlers not passed in (%s)", (_, record) =>
    expectEmpty(load(withRecord(record), [])),
  );

  it("loads records as passive states", () => {
    expect(get(load(withRecord({}))).active).toBe(false);
  });

  it("makes new handlers active", () => {
    expect(get(State.withHandlers(State.empty(), [handler], NOW)).active).toBe(true);
  });

  it("switches loaded states to active", () => {
    const state = State.withHandlers(load(withRecord({ purpose: null })), [handler], NOW);
    expect(state.handlers.size).toBe(1);
    expect(get(state).active).toBe(true);
  });

  it("keeps passive states passive through outcomes", () => {
    const state = outcomes(load(withRecord({ purpose: null })), { "some-id": { final: true } });
    expect(get(state).active).toBe(false);
  });

  it("keeps active states active through outcomes", () => {
    const active = State.withHandlers(State.empty(), [handler], NOW);
    expect(get(outcomes(active, { "some-id": { final: true } })).active).toBe(true);
  });

  it("does not count passive states in done and delays", () => {
    expect(State.isDone(load(withRecord({})))).toBe(true);
    expect(State.delays(load(withRecord({ delayed: TS1_ISO })), NOW)).toEqual([]);
  });

  it("counts active states in done and delays", () => {
    expect(State.isDone(State.withHandlers(load(withRecord({})), [handler], NOW))).toBe(false);
    const delayed = State.withHandlers(load(withRecord({ delayed: TS1_ISO })), [handler], NOW);
    expect(State.delays(delayed, NOW)).toEqual([1]);
  });

  it("rejects outcomes for unknown handlers", () => {
    const result = State.withOutcomes(State.empty(), { ghost: { final: true } }, NOW);
    expect(Result.isFailure(result)).toBe(true);
    if (Result.isFailure(result)) expect(result.failure.handlerIds).toEqual(["ghost"]);
  });

  it("fails with a decode error on a corrupted record", () => {
    const result = State.fromStorage({
      body: withRecord({ started: "yesterday" }),
      storage,
      handlers: [handler],
      now: NOW,
    });
    expect(Result.isFailure(result)).toBe(true);
    if (Result.isFailure(result)) expect(result.failure.reason).toBe("InvalidField");
  });
});

describe("State purposes", () => {
  it("loads a purposeless record with no purpose", () => {
    const state = load(withRecord({ purpose: null }));
    expect(state.purpose).toBeNull();
    expect(get(state).purpose).toBeNull();
  });

  it.each(REASONS)("loads the stored purpose %s per handler", (reason) => {
    const state = load(withRecord({ purpose: reason }));
    expect(state.purpose).toBeNull();
    expect(get(state).purpose).toBe(reason);
  });

  it.each(REASONS)("keeps the purpose %s through handlers and outcomes", (reason) => {
    const state = State.withHandlers(State.withPurpose(State.empty(), reason), [handler], NOW);
    expect(state.purpose).toBe(reason);
    expect(outcomes(State.withPurpose(State.empty(), reason), {}).purpose).toBe(reason);
  });

  it.each(REASONS)("gives %s to handlers added after the purpose", (reason) => {
    const state = State.withHandlers(State.withPurpose(State.empty(), reason), [handler], NOW);
    expect(get(state).purpose).toBe(reason);
  });

  it.each(REASONS)("does not give %s to handlers added before the purpose", (reason) => {
    const state = State.withPurpose(State.withHandlers(State.empty(), [handler], NOW), reason);
    expect(state.purpose).toBe(reason);
    expect(get(state).purpose).toBeNull();
  });

  it.each(REASONS)("re-purposes explicitly given handlers to %s", (reason) => {
    const before = State.withHandlers(State.empty(), [handler], NOW);
    expect(get(State.withPurpose(before, reason, [handler])).purpose).toBe(reason);
  });

  it.each(REASONS)("does not re-purpose existing handlers when re-added (%s)", (reason) => {
    for (const start of [State.empty(), load(withRecord({ purpose: null }))]) {
      const once = State.withHandlers(start, [handler], NOW);
      const state = State.withHandlers(State.withPurpose(once, reason), [handler], NOW);
      expect(state.purpose).toBe(reason);
      expect(get(state).purpose).toBeNull();
    }
  });
});

const TALLIES = [
  ["running", {}, { success: 0, failure: 0, running: 1 }],
  ["failed", { failure: true }, { success: 0, failure: 1, running: 0 }],
  ["succeeded", { success: true }, { success: 1, failure: 0, running: 0 }],
] as const;
const FOREIGN = REASONS.flatMap((a) => REASONS.filter((b) => a !== b).map((b) => [a, b] as const));

describe("State counts and extras", () => {
  it.each(
    FOREIGN.flatMap(([stored, processed]) =>
      TALLIES.map(([name, record, tally]) => [name, stored, processed, record, tally] as const),
    ),
  )("a %s %s handler is an extra when processing %s", (_, stored, processed, record, tally) => {
    const state = State.withPurpose(load(withRecord({ ...record, purpose: stored })), processed);
    expect(State.extras(state)).toEqual({ [stored]: tally });
    expect(State.counts(state)).toEqual({ success: 0, failure: 0, running: 0 });
    expect(State.isDone(state)).toBe(true);
    expect(State.delays(state, NOW)).toEqual([]);
  });

  type SameRow = readonly [
    reason: string,
    name: string,
    record: object,
    tally: State.Counters,
    done: boolean,
    plain: ReadonlyArray<number>,
    delayed: ReadonlyArray<number>,
  ];
  const SAME: ReadonlyArray<SameRow> = REASONS.flatMap(
    (reason): ReadonlyArray<SameRow> => [
      [reason, "running", {}, { success: 0, failure: 0, running: 1 }, false, [0], [1]],
      [reason, "failed", { failure: true }, { success: 0, failure: 1, running: 0 }, true, [], []],
      [reason, "succeeded", { success: true }, { success: 1, failure: 0, running: 0 }, true, [], []],
    ],
  );

  it.each(SAME)(
    "purpose %s, %s handler: counts, done, delays",
    (reason, _, record, tally, done, plain, delayed) => {
      const cases: ReadonlyArray<readonly [object, ReadonlyArray<number>]> = [
        [{}, plain],
        [{ delayed: TS1_ISO }, delayed],
      ];
      for (const [extra, expectedDelays] of cases) {
        const loaded = load(withRecord({ ...record, ...extra, purpose: reason }));
        const state = State.withHandlers(State.withPurpose(loaded, reason), [handler], NOW);
        expect(State.extras(state)).toEqual({});
        expect(State.counts(state)).toEqual(tally);
        expect(State.isDone(state)).toBe(done);
        expect(State.delays(state, NOW)).toEqual(expectedDelays);
      }
    },
  );

  it("counts every handler when the state has no purpose", () => {
    const body = {
      status: {
        kopf: { progress: { a: { purpose: "create", success: true }, b: { purpose: "update" }, c: {} } },
      },
    } as RawBody;
    const state = load(body, [{ id: "a" }, { id: "b" }, { id: "c" }]);
    expect(State.counts(state)).toEqual({ success: 1, failure: 0, running: 2 });
    expect(State.counts(State.withPurpose(state, "update"))).toEqual({ success: 0, failure: 0, running: 2 });
    expect(State.extras(State.withPurpose(state, "update"))).toEqual({
      create: { success: 1, failure: 0, running: 0 },
    });
  });

  it.each(["create", "update", "resume"])("Kopf issue #601: deletion supersedes %s", (reason) => {
    const body = {
      status: {
        kopf: {
          progress: {
            fn1: { purpose: reason, failure: true },
            fn2: { purpose: reason, success: true },
            fn3: { purpose: reason, delayed: TS1_ISO },
          },
        },
      },
    } as RawBody;
    const owned = [{ id: "fn1" }, { id: "fn2" }, { id: "fn3" }, { id: "delete_fn" }];
    let state = State.withPurpose(load(body, owned), "delete");
    state = State.withHandlers(state, [{ id: "delete_fn" }], NOW);
    expect(state.handlers.size).toBe(4);
    expect(State.extras(state)).toEqual({ [reason]: { success: 1, failure: 1, running: 1 } });
    expect(State.counts(state)).toEqual({ success: 0, failure: 0, running: 1 });
    expect(State.isDone(state)).toBe(false);
    expect(State.delays(state, NOW)).toEqual([0]);
    state = outcomes(state, { delete_fn: { final: true } });
    expect(State.extras(state)).toEqual({ [reason]: { success: 1, failure: 1, running: 1 } });
    expect(State.counts(state)).toEqual({ success: 1, failure: 0, running: 0 });
    expect(State.isDone(state)).toBe(true);
    expect(State.delays(state, NOW)).toEqual([]);
  });
});

const active = (record: object) => State.withHandlers(load(withRecord(record)), [handler], NOW);

describe("HandlerState over time", () => {
  it("starts from scratch now", () => {
    expect(stored(State.withHandlers(State.empty(), [handler], NOW)).started).toBe(TS0_ISO);
  });

  it.each([
    [TS0_ISO, {}],
    [TS0_ISO, { started: null }],
    [TS0_ISO, { started: TS0_ISO }],
    [TSB_ISO, { started: TSB_ISO }],
    [TSA_ISO, { started: TSA_ISO }],
  ])("stores started=%s for the record %j, also when activated later", (expected, record) => {
    expect(stored(load(withRecord(record))).started).toBe(expected);
    const later = Result.getOrThrow(
      State.fromStorage({ body: withRecord(record), storage, handlers: [handler], now: NOW }),
    );
    expect(stored(State.withHandlers(later, [handler], NOW + 123_000_000)).started).toBe(expected);
  });

  it.each([
    [0, {}],
    [0, { started: null }],
    [0, { started: TS0_ISO }],
    [TS0 - TSB, { started: TSB_ISO }],
    [TS0 - TSA, { started: TSA_ISO }],
  ])("runtime is %d µs for %j", (expected, record) => {
    expect(HandlerState.runtime(get(active(record)), NOW)).toBe(expected);
  });

  it.each([
    [false, {}],
    [false, { success: false }],
    [false, { failure: false }],
    [false, { success: null }],
    [false, { failure: null }],
    [true, { success: true }],
    [true, { failure: true }],
  ])("finished is %s for %j", (expected, record) => {
    expect(HandlerState.isFinished(get(active(record)))).toBe(expected);
  });

  const SLEEPING: ReadonlyArray<readonly [boolean, object]> = [
    [false, { success: true }],
    [false, { failure: true }],
    [false, { success: true, delayed: TS0_ISO }],
    [false, { failure: true, delayed: TS0_ISO }],
    [false, {}],
    [false, { delayed: null }],
    [false, { success: null }],
    [false, { failure: null }],
    [false, { success: null, delayed: null }],
    [false, { failure: null, delayed: null }],
    [false, { delayed: TS0_ISO }],
    [false, { delayed: TS0_ISO, success: null }],
    [false, { delayed: TS0_ISO, failure: null }],
    [false, { delayed: TSB_ISO }],
    [false, { delayed: TSB_ISO, success: null }],
    [false, { delayed: TSB_ISO, failure: null }],
    [true, { delayed: TSA_ISO }],
    [true, { delayed: TSA_ISO, success: null }],
    [true, { delayed: TSA_ISO, failure: null }],
  ];

  it.each(SLEEPING)("sleeping is %s for %j", (expected, record) => {
    expect(HandlerState.isSleeping(get(active(record)), NOW)).toBe(expected);
  });

  it.each(SLEEPING)("awakened is the opposite of sleeping (%s) unless finished: %j", (sleeping, record) => {
    const state = get(active(record));
    expect(HandlerState.isAwakened(state, NOW)).toBe(!sleeping && !HandlerState.isFinished(state));
  });

  it.each([
    [null, {}],
    [null, { delayed: null }],
    [TS0, { delayed: TS0_ISO }],
    [TS1, { delayed: TS1_ISO }],
    [TSB, { delayed: TSB_ISO }],
    [TSA, { delayed: TSA_ISO }],
  ])("delayed is %s for %j", (expected, record) => {
    expect(get(active(record)).delayed).toBe(expected);
  });

  it.each([
    [0, {}],
    [0, { retries: null }],
    [6, { retries: 6 }],
  ])("retries is %d for %j", (expected, record) => {
    expect(get(active(record)).retries).toBe(expected);
  });

  it.each([
    [1, null, null, {}],
    [1, TS0_ISO, 0, {}],
    [1, TS1_ISO, 1, {}],
    [1, null, null, { retries: null }],
    [1, TS0_ISO, 0, { retries: null }],
    [1, TS1_ISO, 1, { retries: null }],
    [6, null, null, { retries: 5 }],
    [6, TS0_ISO, 0, { retries: 5 }],
    [6, TS1_ISO, 1, { retries: 5 }],
  ])("a retry yields retries=%d, delayed=%s for delay %s from %j", (retries, delayed, delay, record) => {
    const body = withRecord(record);
    const state = outcomes(active(record), { "some-id": { final: false, delay } });
    const written = stored(state, body);
    expect(written.retries).toBe(retries);
    expect(written.delayed).toBe(delayed);
  });

  it.each([
    [["sub2/b", "sub2/a", "sub2", "sub1", "sub3"], {}, ["sub1", "sub2", "sub2/a", "sub2/b", "sub3"]],
    [
      ["sub2/b", "sub2/a", "sub2", "sub1", "sub3"],
      { subrefs: ["sub9/2", "sub9/1"] },
      ["sub1", "sub2", "sub2/a", "sub2/b", "sub3", "sub9/1", "sub9/2"],
    ],
    [[], {}, null],
  ])("subrefs %j merged into %j are stored as %j", (subrefs, record, expected) => {
    const state = outcomes(active(record), { "some-id": { final: true, subrefs } });
    expect(stored(state, withRecord(record)).subrefs).toEqual(expected);
  });

  it.each([
    [1, {}],
    [6, { retries: 5 }],
  ])("a failure is stored with retries=%d (from %j)", (retries, record) => {
    const error = { message: "some-error" };
    const written = stored(outcomes(active(record), { "some-id": { final: true, error } }));
    expect(written).toMatchObject({ success: false, failure: true, retries, stopped: TS0_ISO });
    expect(written.message).toBe("some-error");
  });

  it.each([
    [1, {}],
    [6, { retries: 5 }],
  ])("a success is stored with retries=%d (from %j)", (retries, record) => {
    const written = stored(outcomes(active(record), { "some-id": { final: true } }));
    expect(written).toMatchObject({ success: true, failure: false, retries, stopped: TS0_ISO });
    expect(written.message).toBeNull();
  });

  it("keeps the first stopped time on later outcomes", () => {
    const state = outcomes(active({ stopped: TSB_ISO, failure: true }), { "some-id": { final: true } });
    expect(stored(state).stopped).toBe(TSB_ISO);
  });
});

describe("results and purging", () => {
  it.each([
    [null, {}],
    [undefined, {}],
    ["string", { status: { "some-id": "string" } }],
    [{}, { status: { "some-id": {} } }],
    [[1, 2], { status: { "some-id": [1, 2] } }],
    [{ field: "value" }, { status: { "some-id": { field: "value" } } }],
  ])("delivers the result %j as %j", (result, expected) => {
    const patch: PlainPatch = {};
    Outcome.deliverResults({ "some-id": { final: true, result } }, patch);
    expect(patch).toEqual(expected);
  });

  it("skips the results of failed attempts and merges mappings one level deep", () => {
    const patch: PlainPatch = { status: { a: { x: 1, y: 1 } } };
    Outcome.deliverResults(
      new Map<string, Outcome.Outcome>([
        ["a", { final: true, result: { y: 2, z: { deep: true } } }],
        ["b", { final: false, delay: 1, result: "ignored", error: { message: "retry" } }],
      ]),
      patch,
    );
    expect(patch).toEqual({ status: { a: { x: 1, y: 2, z: { deep: true } } } });
  });

  const purged = (
    body: RawBody,
    loadWith: ReadonlyArray<State.HandlerRef>,
    purgeWith: ReadonlyArray<State.HandlerRef>,
    patch: PlainPatch = {},
  ) => {
    State.purge(load(body, loadWith), { body, patch, storage, handlers: purgeWith });
    return patch;
  };
  const NULLED = { status: { kopf: { progress: { "some-id": null } } } };

  it("purges an existing record", () => {
    expect(purged(withRecord({ retries: 5 }), [handler], [handler])).toEqual(NULLED);
  });

  it("purges nothing when the record is absent", () => {
    expect(purged({}, [handler], [handler])).toEqual({});
  });

  it("removes a record only pending in the patch", () => {
    const patch = { status: { kopf: { progress: { "some-id": { retries: 5 } } } } };
    expect(purged({}, [handler], [handler], patch)).toEqual({});
  });

  it("purges records known at restoration only or at purging only", () => {
    expect(purged(withRecord({ retries: 5 }), [handler], [])).toEqual(NULLED);
    expect(purged(withRecord({ retries: 5 }), [], [handler])).toEqual(NULLED);
  });

  it("cascades to subrefs, and ignores absent and unrelated records", () => {
    const body = {
      status: {
        kopf: {
          progress: {
            "some-id": { subrefs: ["sub1", "sub2", "sub3"] },
            sub1: {},
            sub2: {},
            "sub-unrelated": {},
          },
        },
      },
    } as RawBody;
    expect(purged(body, [handler], [handler])).toEqual({
      status: { kopf: { progress: { "some-id": null, sub1: null, sub2: null } } },
    });
  });

  it("does not modify the body when storing", () => {
    const body = {};
    State.store(State.withHandlers(load(body), [handler], NOW), { body, patch: {}, storage });
    expect(body).toEqual({});
  });

  it("drops successes only (without a purpose, as Kopf)", () => {
    const body = {
      status: { kopf: { progress: { a: { success: true }, b: { failure: true }, c: {} } } },
    } as RawBody;
    const state = State.withPurpose(load(body, [{ id: "a" }, { id: "b" }, { id: "c" }]), "create");
    const left = State.withoutSuccesses(state);
    expect([...left.handlers.keys()]).toEqual(["b", "c"]);
    expect(left.purpose).toBeNull();
  });
});

describe("State properties", () => {
  it("storing, reloading and storing again writes nothing the second time", () => {
    const annotationStorage = SmartProgressStorage.makeDefault();
    const outcomeList = fc.array(
      fc.record({
        final: fc.boolean(),
        delay: fc.option(fc.double({ min: 0, max: 3600, noNaN: true }), { nil: null }),
        error: fc.option(fc.record({ message: fc.string({ unit: "binary" }) }), { nil: null }),
        subrefs: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(outcomeList, fc.integer({ min: 0, max: 10 ** 15 }), (list, now) => {
        const ids = list.map((_, i) => ({ id: `h${i}` }));
        let state = State.withHandlers(State.withPurpose(State.empty(), "update"), ids, now);
        state = Result.getOrThrow(
          State.withOutcomes(state, Object.fromEntries(list.map((o, i) => [`h${i}`, o])), now),
        );
        const first = Patch.make({});
        State.store(state, { body: {}, patch: first, storage: annotationStorage });
        const body = Patch.applyMergePatch({} as RawBody, first.toMergePatch());
        const loaded = Result.getOrThrow(
          State.fromStorage({ body, storage: annotationStorage, handlers: ids, now: now + 5_000_000 }),
        );
        const reactivated = State.withHandlers(State.withPurpose(loaded, "update"), ids, now + 5_000_000);
        const second = Patch.make(body);
        State.store(reactivated, { body, patch: second, storage: annotationStorage });
        expect(second.toMergePatch()).toEqual({});
        for (const { id } of ids) {
          const before = state.handlers.get(id);
          const after = reactivated.handlers.get(id);
          expect(after && before && { ...after, origin: null, active: true }).toEqual(
            before && { ...before, origin: null, subrefs: [...before.subrefs].sort() },
          );
        }
      }),
    );
  });

  const outcomeArb: fc.Arbitrary<Outcome.Outcome> = fc.record({
    final: fc.boolean(),
    delay: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: null }),
    error: fc.option(fc.record({ message: fc.string() }), { nil: null }),
    subrefs: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 4 }),
  });

  it("retries grow by one per outcome, stopped is set once, finished states never run", () => {
    fc.assert(
      fc.property(fc.array(outcomeArb, { maxLength: 6 }), (attempts) => {
        let state = State.withHandlers(State.empty(), [handler], NOW);
        let stoppedAt: number | null = null;
        attempts.forEach((outcome, index) => {
          const now = NOW + index * 1_000_000;
          state = Result.getOrThrow(State.withOutcomes(state, { "some-id": outcome }, now));
          const current = get(state);
          expect(current.retries).toBe(index + 1);
          if (stoppedAt === null && outcome.final) stoppedAt = now;
          expect(current.stopped).toBe(stoppedAt);
          expect(HandlerState.isFinished(current)).toBe(outcome.final);
          if (HandlerState.isFinished(current)) {
            expect(HandlerState.isAwakened(current, now)).toBe(false);
          }
          expect([...current.subrefs]).toEqual([...new Set(current.subrefs)].sort());
        });
      }),
    );
  });

  it("delays are never negative and done means no delays", () => {
    fc.assert(
      fc.property(
        fc.array(outcomeArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -5, max: 5 }),
        (list, shift) => {
          const ids = list.map((_, i) => ({ id: `h${i}` }));
          let state = State.withHandlers(State.empty(), ids, NOW);
          state = Result.getOrThrow(
            State.withOutcomes(state, Object.fromEntries(list.map((o, i) => [`h${i}`, o])), NOW),
          );
          const later = NOW + shift * 1_000_000;
          const delays = State.delays(state, later);
          for (const d of delays) expect(d).toBeGreaterThanOrEqual(0);
          expect(State.isDone(state)).toBe(delays.length === 0);
        },
      ),
    );
  });
});

// Covers a changing cause's use of the handler states across cycles (docs/behaviour/processing.md#changing-causes steps 2–5):
// a fresh cause over two cycles with results and the final purge, a deletion superseding an
// unfinished creation (Kopf issue #601: report, purge, start afresh), and resume handlers re-purposed
// into an update without purging. Uses the default (smart) storage and the real Patch.
import { describe, expect, it } from "@effect/vitest";
import { IsoTime, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Progression from "../src/Progression.ts";
import * as SmartProgressStorage from "../src/SmartProgressStorage.ts";
import * as State from "../src/State.ts";

const T0 = Result.getOrThrow(IsoTime.parse("2020-12-31T23:59:59.123456+00:00"));
const T0_ISO = "2020-12-31T23:59:59.123456+00:00";
const storage = SmartProgressStorage.makeDefault();
const ok = <A, E>(result: Result.Result<A, E>): A => Result.getOrThrow(result);
const annotationsOf = (patch: Patch.Patch) => patch.toMergePatch().metadata as { annotations: object };
const withAnnotations = (annotations: Record<string, string>): RawBody => ({ metadata: { annotations } });

describe("Progression", () => {
  it("runs a fresh cause over two cycles, then purges everything", () => {
    const owned = [{ id: "h1" }, { id: "h2" }];
    const first = Patch.make({});
    const begun = ok(
      Progression.begin({
        body: {},
        patch: first,
        storage,
        ownedHandlers: owned,
        causeHandlers: owned,
        purpose: "create",
        now: T0,
      }),
    );
    expect(begun.superseded).toEqual([]);
    expect(first.isEmpty()).toBe(true);
    const cycle1 = ok(
      Progression.finish({
        state: begun.state,
        outcomes: { h1: { final: true, result: { answer: 42 } } },
        body: {},
        patch: first,
        storage,
        ownedHandlers: owned,
        now: T0,
      }),
    );
    expect(cycle1).toMatchObject({
      done: false,
      delays: [0],
      counts: { success: 1, failure: 0, running: 1 },
    });
    expect(first.toMergePatch()).toEqual({
      metadata: {
        annotations: {
          "kopf.zalando.org/h1": `{"started":"${T0_ISO}","stopped":"${T0_ISO}","purpose":"create","retries":1,"success":true,"failure":false}`,
          "kopf.zalando.org/h2": `{"started":"${T0_ISO}","purpose":"create","retries":0,"success":false,"failure":false}`,
        },
      },
      status: { h1: { answer: 42 } },
    });

    const body = Patch.applyMergePatch({} as RawBody, first.toMergePatch());
    const second = Patch.make(body);
    const again = ok(
      Progression.begin({
        body,
        patch: second,
        storage,
        ownedHandlers: owned,
        causeHandlers: owned,
        purpose: "create",
        now: T0,
      }),
    );
    const cycle2 = ok(
      Progression.finish({
        state: again.state,
        outcomes: { h2: { final: true } },
        body,
        patch: second,
        storage,
        ownedHandlers: owned,
        now: T0,
      }),
    );
    expect(cycle2).toMatchObject({ done: true, delays: [], counts: { success: 2, failure: 0, running: 0 } });
    expect(second.toMergePatch()).toEqual({
      metadata: { annotations: { "kopf.zalando.org/h1": null, "kopf.zalando.org/h2": null } },
    });
  });

  it("lets a deletion supersede an unfinished creation (Kopf issue #601)", () => {
    const body = withAnnotations({
      "kopf.zalando.org/fn1": '{"purpose":"create","failure":true}',
      "kopf.zalando.org/fn2": '{"purpose":"create","success":true}',
      "kopf.zalando.org/fn3": '{"purpose":"create","delayed":"2021-01-01T00:00:00.123456+00:00"}',
    });
    const owned = [{ id: "fn1" }, { id: "fn2" }, { id: "fn3" }, { id: "delete_fn" }];
    const patch = Patch.make(body);
    const begun = ok(
      Progression.begin({
        body,
        patch,
        storage,
        ownedHandlers: owned,
        causeHandlers: [{ id: "delete_fn" }],
        purpose: "delete",
        now: T0,
      }),
    );
    expect(begun.superseded).toEqual([{ purpose: "create", counts: { success: 1, failure: 1, running: 1 } }]);
    expect(annotationsOf(patch)).toEqual({
      annotations: {
        "kopf.zalando.org/fn1": null,
        "kopf.zalando.org/fn2": null,
        "kopf.zalando.org/fn3": null,
      },
    });
    const finished = ok(
      Progression.finish({
        state: begun.state,
        outcomes: { delete_fn: { final: true } },
        body,
        patch,
        storage,
        ownedHandlers: owned,
        now: T0,
      }),
    );
    expect(finished.done).toBe(true);
    expect(finished.counts).toEqual({ success: 1, failure: 0, running: 0 });
    // delete_fn was stored and then purged from the pending patch; the old records stay deleted.
    expect(annotationsOf(patch)).toEqual({
      annotations: {
        "kopf.zalando.org/fn1": null,
        "kopf.zalando.org/fn2": null,
        "kopf.zalando.org/fn3": null,
      },
    });
  });

  it("re-purposes resume handlers mixed into an update, without purging", () => {
    const body = withAnnotations({ "kopf.zalando.org/resume_fn": '{"purpose":"resume","retries":1}' });
    const owned = [{ id: "resume_fn" }, { id: "update_fn" }];
    const patch = Patch.make(body);
    const begun = ok(
      Progression.begin({
        body,
        patch,
        storage,
        ownedHandlers: owned,
        causeHandlers: owned,
        purpose: "update",
        now: T0,
      }),
    );
    expect(begun.superseded).toEqual([{ purpose: "resume", counts: { success: 0, failure: 0, running: 1 } }]);
    expect(patch.isEmpty()).toBe(true);
    expect(begun.state.handlers.get("resume_fn")?.purpose).toBe("update");
    expect(State.extras(begun.state)).toEqual({});
    expect(State.counts(begun.state)).toEqual({ success: 0, failure: 0, running: 2 });
  });

  it("finishes a cause started by a legacy operator that kept progress in the status", () => {
    const body = {
      status: { kopf: { progress: { h1: { started: T0_ISO, purpose: "create", retries: 2 } } } },
    } as RawBody;
    const owned = [{ id: "h1" }];
    const patch = Patch.make(body);
    const begun = ok(
      Progression.begin({
        body,
        patch,
        storage,
        ownedHandlers: owned,
        causeHandlers: owned,
        purpose: "create",
        now: T0,
      }),
    );
    expect(begun.state.handlers.get("h1")?.retries).toBe(2);
    const finished = ok(
      Progression.finish({
        state: begun.state,
        outcomes: { h1: { final: true } },
        body,
        patch,
        storage,
        ownedHandlers: owned,
        now: T0,
      }),
    );
    expect(finished.done).toBe(true);
    // The new record went to the annotations and was purged from the patch again; the legacy
    // status record is deleted; nothing else is written.
    expect(patch.toMergePatch()).toEqual({ status: { kopf: { progress: { h1: null } } } });
  });

  it("fails on outcomes for handlers outside the state", () => {
    const begun = ok(
      Progression.begin({
        body: {},
        patch: Patch.make({}),
        storage,
        ownedHandlers: [],
        causeHandlers: [],
        purpose: "create",
        now: T0,
      }),
    );
    const result = Progression.finish({
      state: begun.state,
      outcomes: { ghost: { final: true } },
      body: {},
      patch: Patch.make({}),
      storage,
      ownedHandlers: [],
      now: T0,
    });
    expect(Result.isFailure(result) && result.failure.reason).toBe("UnknownHandlers");
  });

  it("reports corrupted records instead of starting over", () => {
    const body = withAnnotations({ "kopf.zalando.org/h1": "{not json" });
    const result = Progression.begin({
      body,
      patch: Patch.make(body),
      storage,
      ownedHandlers: [{ id: "h1" }],
      causeHandlers: [{ id: "h1" }],
      purpose: "create",
      now: T0,
    });
    expect(Result.isFailure(result) && result.failure.reason).toBe("InvalidJson");
  });
});

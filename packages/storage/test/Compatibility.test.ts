// Covers on-cluster compatibility with Python Kopf: annotation values written exactly as Kopf
// writes them (built by hand from the spec: compact JSON, ensure_ascii escapes, Kopf's key
// order, the trailing newline of the last-handled configuration, V1+V2 keys) are read, treated
// as handled, not rewritten, and re-encoded to the very same bytes. Uses the real Patch.
import { describe, expect, it } from "@effect/vitest";
import { IsoTime, Json, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationKeys from "../src/AnnotationKeys.ts";
import * as AnnotationsDiffBaseStorage from "../src/AnnotationsDiffBaseStorage.ts";
import * as DiffBaseStorage from "../src/DiffBaseStorage.ts";
import * as HandlerState from "../src/HandlerState.ts";
import * as ProgressRecord from "../src/ProgressRecord.ts";
import * as SmartProgressStorage from "../src/SmartProgressStorage.ts";
import * as State from "../src/State.ts";

const TS0_ISO = "2020-12-31T23:59:59.123456+00:00";
const TS1_ISO = "2021-01-01T00:00:00.123456+00:00";
const NOW = Result.getOrThrow(IsoTime.parse(TS1_ISO));

// What Kopf writes after create_fn succeeded on its first attempt (non-verbose: nulls dropped).
const KOPF_CREATE_FN = `{"started":"${TS0_ISO}","stopped":"${TS0_ISO}","purpose":"create","retries":1,"success":true,"failure":false}`;
// A handler that failed once and is retried; the message has non-ASCII text, escaped by Python.
const KOPF_RETRYING = String.raw`{"started":"${TS0_ISO}","delayed":"2021-01-01T00:01:00.123456+00:00","purpose":"create","retries":1,"success":false,"failure":false,"message":"Fehler: \u00fcberlauf \ud83d\ude00"}`;
// The last-handled configuration: the essence as compact ASCII JSON plus "\n".
const KOPF_LAST_HANDLED =
  String.raw`{"spec":{"duration":"1m","items":["item1","item2"],"name":"J\u00fcrgen \ud83d\ude00","ratio":0.5},"metadata":{"labels":{"somelabel":"somevalue"},"annotations":{"someannotation":"\u00e9t\u00e9"}}}` +
  "\n";
// Long enough for the V1 key (whole key ≤ 63) to be hashed while the V2 key (name ≤ 63) is not.
const LONG_ID = "x".repeat(50);
const LONG_V1 = AnnotationKeys.v1Key("kopf.zalando.org", LONG_ID);

const body: RawBody = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "kopf-example-1",
    namespace: "default",
    uid: "0c8a4a8f-2f5b-4e0b-9f43-58d5c1f3a001",
    resourceVersion: "12345",
    labels: { somelabel: "somevalue" },
    annotations: {
      someannotation: "été",
      "kopf.zalando.org/last-handled-configuration": KOPF_LAST_HANDLED,
      "kopf.zalando.org/create_fn": KOPF_CREATE_FN,
      "kopf.zalando.org/retrying_fn": KOPF_RETRYING,
      [`kopf.zalando.org/${LONG_ID}`]: KOPF_CREATE_FN,
      [LONG_V1]: KOPF_CREATE_FN,
    },
    finalizers: ["kopf.zalando.org/KopfFinalizerMarker"],
  },
  spec: { duration: "1m", items: ["item1", "item2"], name: "Jürgen 😀", ratio: 0.5 },
  status: { create_fn: { message: "created" } },
};

const progress = SmartProgressStorage.makeDefault();
const diffbase = AnnotationsDiffBaseStorage.makeDefault();
const handlers = [{ id: "create_fn" }, { id: "retrying_fn" }, { id: LONG_ID }];

describe("reading Kopf-written state", () => {
  it("reads the last-handled configuration and finds the object unchanged", () => {
    const old = Result.getOrThrow(diffbase.fetch({ body }));
    const now = diffbase.build({ body });
    expect(old).toEqual(now);
    expect(`${Json.pyDumps(now)}\n`).toBe(KOPF_LAST_HANDLED);
    const patch = Patch.make(body);
    expect(DiffBaseStorage.storeIfChanged(diffbase, { body, patch, old, new: now })).toBe(false);
    expect(patch.isEmpty()).toBe(true);
  });

  it("would write the very same bytes for the same essence", () => {
    const patch = Patch.make(body);
    diffbase.store({ body, patch, essence: diffbase.build({ body }) });
    expect(patch.toMergePatch()).toEqual({
      metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": KOPF_LAST_HANDLED } },
    });
  });

  it("reads progress records and treats finished handlers as handled", () => {
    const loaded = Result.getOrThrow(State.fromStorage({ body, storage: progress, handlers, now: NOW }));
    const state = State.withHandlers(State.withPurpose(loaded, "create"), handlers, NOW);
    const created = state.handlers.get("create_fn");
    expect(created && HandlerState.isFinished(created)).toBe(true);
    expect(created?.retries).toBe(1);
    const retrying = state.handlers.get("retrying_fn");
    expect(retrying?.message).toBe("Fehler: überlauf 😀");
    expect(retrying && HandlerState.isSleeping(retrying, NOW)).toBe(true);
    expect(State.counts(state)).toEqual({ success: 2, failure: 0, running: 1 });
    expect(State.delay(state, NOW)).toBe(60);
  });

  it("does not rewrite unchanged records, and re-encodes them to the same bytes", () => {
    const loaded = Result.getOrThrow(State.fromStorage({ body, storage: progress, handlers, now: NOW }));
    const state = State.withHandlers(State.withPurpose(loaded, "create"), handlers, NOW);
    const patch = Patch.make(body);
    State.store(state, { body, patch, storage: progress });
    expect(patch.isEmpty()).toBe(true);
    for (const [id, text] of [
      ["create_fn", KOPF_CREATE_FN],
      ["retrying_fn", KOPF_RETRYING],
    ] as const) {
      const handler = state.handlers.get(id);
      if (handler === undefined) throw new Error(id);
      expect(ProgressRecord.encode(HandlerState.forStorage(handler), false)).toBe(text);
    }
  });

  it("writes a new record exactly as Kopf would", () => {
    const t0 = Result.getOrThrow(IsoTime.parse(TS0_ISO));
    let state = State.withHandlers(State.withPurpose(State.empty(), "create"), [{ id: "create_fn" }], t0);
    state = Result.getOrThrow(State.withOutcomes(state, { create_fn: { final: true } }, t0));
    const patch = Patch.make({});
    State.store(state, { body: {}, patch, storage: progress });
    expect(patch.toMergePatch()).toEqual({
      metadata: { annotations: { "kopf.zalando.org/create_fn": KOPF_CREATE_FN } },
    });
  });

  it("writes and purges both V2 and V1 keys of long handler ids", () => {
    const t0 = Result.getOrThrow(IsoTime.parse(TS0_ISO));
    let state = State.withHandlers(State.withPurpose(State.empty(), "create"), [{ id: LONG_ID }], t0);
    state = Result.getOrThrow(State.withOutcomes(state, { [LONG_ID]: { final: true } }, t0));
    const stored = Patch.make({});
    State.store(state, { body: {}, patch: stored, storage: progress });
    expect(stored.toMergePatch()).toEqual({
      metadata: {
        annotations: {
          [`kopf.zalando.org/${LONG_ID}`]: KOPF_CREATE_FN,
          [LONG_V1]: KOPF_CREATE_FN,
        },
      },
    });
    const purged = Patch.make(body);
    State.purge(state, { body, patch: purged, storage: progress, handlers: [{ id: LONG_ID }] });
    expect(purged.toMergePatch()).toEqual({
      metadata: {
        annotations: {
          [`kopf.zalando.org/${LONG_ID}`]: null,
          [LONG_V1]: null,
        },
      },
    });
  });

  it("purges everything of a finished cause, Kopf-written records included", () => {
    const loaded = Result.getOrThrow(State.fromStorage({ body, storage: progress, handlers, now: NOW }));
    const patch = Patch.make(body);
    State.purge(loaded, { body, patch, storage: progress, handlers });
    expect(Object.keys(patch.toMergePatch().metadata as object)).toEqual(["annotations"]);
    expect(patch.metadata.annotations["kopf.zalando.org/create_fn"]).toBeNull();
    expect(patch.metadata.annotations["kopf.zalando.org/retrying_fn"]).toBeNull();
    expect(patch.metadata.annotations[`kopf.zalando.org/${LONG_ID}`]).toBeNull();
  });

  it("reads a record without failure:false as handled (and, as Kopf, re-stores it complete)", () => {
    const brief = `{"started":"${TS0_ISO}","stopped":"${TS0_ISO}","purpose":"create","retries":1,"success":true}`;
    const minimal = { metadata: { annotations: { "kopf.zalando.org/create_fn": brief } } };
    const loaded = Result.getOrThrow(
      State.fromStorage({ body: minimal, storage: progress, handlers: [{ id: "create_fn" }], now: NOW }),
    );
    const state = State.withHandlers(State.withPurpose(loaded, "create"), [{ id: "create_fn" }], NOW);
    expect(State.isDone(state)).toBe(true);
    const patch = Patch.make(minimal);
    State.store(state, { body: minimal, patch, storage: progress });
    expect(patch.metadata.annotations["kopf.zalando.org/create_fn"]).toBe(KOPF_CREATE_FN);
  });

  it("keeps timestamps in the form they were written (naive, Z) when the instant is unchanged", () => {
    const legacy = `{"started":"2020-12-31T23:59:59.123456","delayed":"2021-01-01T00:00:00Z","retries":2}`;
    const handler = Result.getOrThrow(
      HandlerState.fromStorage(Result.getOrThrow(ProgressRecord.decode(legacy, "k")) ?? {}, NOW),
    );
    const record = HandlerState.forStorage(handler);
    expect(record.started).toBe("2020-12-31T23:59:59.123456");
    expect(record.delayed).toBe("2021-01-01T00:00:00Z");
    expect(HandlerState.isChanged(handler)).toBe(true); // success/failure:false are added, as Kopf does
  });
});

describe("the kopf-managed marker of custom prefixes", () => {
  it("is written once with the last-handled configuration, and makes others skip the prefix", () => {
    const storage = Result.getOrThrow(AnnotationsDiffBaseStorage.make({ prefix: "my-op.example.com" }));
    const patch = Patch.make({});
    storage.store({ body: {}, patch, essence: { spec: { a: 1 } } });
    expect(patch.toMergePatch()).toEqual({
      metadata: {
        annotations: {
          "my-op.example.com/last-handled-configuration": '{"spec":{"a":1}}\n',
          "my-op.example.com/kopf-managed": "yes",
        },
      },
    });
    const other = AnnotationsDiffBaseStorage.makeDefault();
    const annotated = { spec: { a: 1 }, metadata: patch.toMergePatch().metadata } as RawBody;
    expect(other.build({ body: annotated })).toEqual({ spec: { a: 1 } });
    const again = Patch.make(annotated);
    storage.store({ body: annotated, patch: again, essence: { spec: { a: 2 } } });
    expect(Object.keys(again.metadata.annotations)).toEqual(["my-op.example.com/last-handled-configuration"]);
  });
});

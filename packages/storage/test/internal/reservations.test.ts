/**
 * A state done in the cycle that changed it: its records are stored, the handlers' results
 * delivered, and the records purged, before the patch is read. With `thenPurged`, the built-in
 * storages only reserve the records' places; the patch after the purge must be the same as with
 * the records written, for every storage, body and patch shape (records in the object or not,
 * explicitly empty sections, a `null` on the way, results that land where a record is), and a
 * custom storage still gets its records.
 */
import { describe, expect, it } from "@effect/vitest";
import { IsoTime, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationsProgressStorage from "../../src/AnnotationsProgressStorage.ts";
import type { ProgressStorage } from "../../src/internal/progressStorageApi.ts";
import { reserveOf } from "../../src/internal/reservations.ts";
import * as MultiProgressStorage from "../../src/MultiProgressStorage.ts";
import * as Outcome from "../../src/Outcome.ts";
import * as SmartProgressStorage from "../../src/SmartProgressStorage.ts";
import * as State from "../../src/State.ts";
import * as StatusProgressStorage from "../../src/StatusProgressStorage.ts";

const NOW = Result.getOrThrow(IsoTime.parse("2021-01-01T00:00:00.123456+00:00"));

const storages: ReadonlyArray<readonly [string, ProgressStorage]> = [
  ["smart, default", SmartProgressStorage.makeDefault()],
  [
    "smart, own prefix (with its marker)",
    Result.getOrThrow(SmartProgressStorage.make({ prefix: "op.example.com" })),
  ],
  ["annotations, no V1 keys", Result.getOrThrow(AnnotationsProgressStorage.make({ v1: false }))],
  ["status", StatusProgressStorage.make()],
  ["status, records where the results go", StatusProgressStorage.make({ field: "status" })],
  [
    "multi: annotations and status",
    MultiProgressStorage.make([
      Result.getOrThrow(AnnotationsProgressStorage.make({ prefix: "op.example.com" })),
      StatusProgressStorage.make(),
    ]),
  ],
];

const metadata = { name: "obj", namespace: "ns", uid: "u-1" };
const record = JSON.stringify({ started: "2021-01-01T00:00:00.000000+00:00", retries: 1, success: false });
const bodies: ReadonlyArray<readonly [string, RawBody]> = [
  ["no records", { metadata }],
  ["empty stanzas", { metadata: { ...metadata, annotations: {} }, status: {} }],
  [
    "records in the object",
    {
      metadata: {
        ...metadata,
        annotations: {
          "kopf.zalando.org/fn": record,
          "op.example.com/fn": record,
          "op.example.com/kopf-managed": "yes",
        },
      },
      status: { kopf: { progress: { fn: JSON.parse(record) } }, fn: JSON.parse(record) },
    },
  ],
];

const patches: ReadonlyArray<readonly [string, (patch: Patch.Patch) => void]> = [
  ["fresh", () => {}],
  ["annotations set to {}", (patch) => (patch.metadata.annotations = {})],
  ["status set to {}", (patch) => (patch.status = {})],
  ["status.kopf set to null", (patch) => (patch.status.kopf = null)],
  [
    "other content",
    (patch) => {
      patch.status.phase = "Running";
      patch.metadata.annotations["example.com/note"] = "x";
    },
  ],
];

const runs: ReadonlyArray<readonly [string, Record<string, Outcome.Outcome>]> = [
  ["no result", { fn: Outcome.success() }],
  ["an object result", { fn: Outcome.success({ answer: 42 }) }],
  ["a scalar result", { fn: Outcome.success("done") }],
  ["a handler named kopf", { fn: Outcome.success(), kopf: Outcome.success({ progress: { x: 1 } }) }],
];

/** One done cycle's storage steps on a fresh patch; the merge patch and emptiness after it. */
const cycle = (
  storage: ProgressStorage,
  body: RawBody,
  shape: (patch: Patch.Patch) => void,
  outcomes: Record<string, Outcome.Outcome>,
  thenPurged: boolean,
) => {
  const handlers = Object.keys(outcomes).map((id) => ({ id }));
  const loaded = Result.getOrThrow(State.fromStorage({ body, storage, handlers, now: NOW }));
  const state = Result.getOrThrow(
    State.withOutcomes(State.withHandlers(loaded, handlers, NOW), outcomes, NOW),
  );
  expect(State.isDone(state)).toBe(true);
  const patch = new Patch.Patch(body);
  shape(patch);
  State.store(state, { body, patch, storage, thenPurged });
  Outcome.deliverResults(outcomes, patch);
  State.purge(state, { body, patch, storage, handlers });
  return { mergePatch: patch.toMergePatch(), empty: patch.isEmpty() };
};

describe("reservations", () => {
  it("every built-in storage has one", () => {
    for (const [, storage] of storages) expect(reserveOf(storage)).toBeDefined();
  });

  describe.each(storages)("%s", (_, storage) => {
    it.each(bodies)(
      "%s: the same patch as with the records written, whatever the patch and results",
      (_, body) => {
        for (const [patchName, shape] of patches) {
          for (const [runName, outcomes] of runs) {
            const written = cycle(storage, body, shape, outcomes, false);
            const reserved = cycle(storage, body, shape, outcomes, true);
            expect(reserved, `patch ${patchName}, ${runName}`).toStrictEqual(written);
          }
        }
      },
    );
  });

  it("the parts of a store that no purge takes back stay: an own prefix's marker", () => {
    const storage = Result.getOrThrow(SmartProgressStorage.make({ prefix: "op.example.com" }));
    const { mergePatch } = cycle(storage, { metadata }, () => {}, { fn: Outcome.success() }, true);
    expect(mergePatch).toStrictEqual({ metadata: { annotations: { "op.example.com/kopf-managed": "yes" } } });
  });

  it("what the purge empties goes, as it does after a written record: an explicitly empty section", () => {
    const storage = SmartProgressStorage.makeDefault();
    const shape = (patch: Patch.Patch) => (patch.metadata.annotations = {});
    const { mergePatch, empty } = cycle(storage, { metadata }, shape, { fn: Outcome.success() }, true);
    expect(mergePatch).toStrictEqual({});
    expect(empty).toBe(true);
  });

  it("a record in the object is deleted with null, as after a written one", () => {
    const storage = SmartProgressStorage.makeDefault();
    const body = bodies[2]![1];
    const { mergePatch } = cycle(storage, body, () => {}, { fn: Outcome.success() }, true);
    expect(mergePatch).toStrictEqual({
      metadata: { annotations: { "kopf.zalando.org/fn": null } },
      status: { kopf: { progress: { fn: null } } },
    });
  });

  it("a custom storage, or a copy of a built-in one with its own store, gets its records", () => {
    const stored: Array<string> = [];
    const custom: ProgressStorage = {
      ...StatusProgressStorage.make(),
      store: ({ key, record }) => {
        stored.push(`${key}:${record.success === true}`);
      },
    };
    expect(reserveOf(custom)).toBeUndefined();
    const multi = MultiProgressStorage.make([SmartProgressStorage.makeDefault(), custom]);
    expect(reserveOf(multi)).toBeUndefined();
    for (const storage of [custom, multi])
      cycle(storage, { metadata }, () => {}, { fn: Outcome.success() }, true);
    expect(stored).toStrictEqual(["fn:true", "fn:true"]);
  });
});

// Covers byte-for-byte compatibility with what Python Kopf 1.45.2 itself writes: the fixtures in
// fixtures/kopf-fixtures.json were produced by running Kopf's own storages and states
// (fixtures/kopf-fixtures.py). Each scenario is replayed here and must yield the very same
// essences, annotation and status values (as bytes), touch and purge patches, and keys.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "@effect/vitest";
import { IsoTime, type Json, Patch, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationKeys from "../src/AnnotationKeys.ts";
import * as AnnotationsDiffBaseStorage from "../src/AnnotationsDiffBaseStorage.ts";
import * as AnnotationsProgressStorage from "../src/AnnotationsProgressStorage.ts";
import type { DiffBaseStorage } from "../src/DiffBaseStorage.ts";
import * as MultiDiffBaseStorage from "../src/MultiDiffBaseStorage.ts";
import * as Outcome from "../src/Outcome.ts";
import type { ProgressStorage } from "../src/ProgressStorage.ts";
import * as SmartProgressStorage from "../src/SmartProgressStorage.ts";
import * as State from "../src/State.ts";
import * as StatusDiffBaseStorage from "../src/StatusDiffBaseStorage.ts";
import * as StatusProgressStorage from "../src/StatusProgressStorage.ts";

interface Fixtures {
  readonly now: string;
  readonly body: RawBody;
  readonly essences: ReadonlyArray<{
    readonly name: string;
    readonly body?: RawBody;
    readonly extra: ReadonlyArray<string>;
    readonly essence: Json.JsonObject;
    readonly patch: Json.JsonObject;
  }>;
  readonly progress: ReadonlyArray<{
    readonly name: string;
    readonly patch: Json.JsonObject;
    readonly touch: Json.JsonObject;
    readonly purge: Json.JsonObject;
  }>;
  readonly keys: ReadonlyArray<{
    readonly prefix: string;
    readonly key: string;
    readonly keys: ReadonlyArray<string>;
  }>;
}

const fixtures = JSON.parse(
  readFileSync(new URL("./fixtures/kopf-fixtures.json", import.meta.url), "utf8"),
) as Fixtures;
const ok = <A, E>(result: Result.Result<A, E>): A => Result.getOrThrow(result);
const NOW = ok(IsoTime.parse(fixtures.now));

const DIFFBASE: Readonly<Record<string, () => DiffBaseStorage>> = {
  "annotations-default": () => AnnotationsDiffBaseStorage.makeDefault(),
  "annotations-extra": () => AnnotationsDiffBaseStorage.makeDefault(),
  "annotations-custom": () =>
    ok(AnnotationsDiffBaseStorage.make({ prefix: "my-op.example.com", key: `diff-base-${"k".repeat(60)}` })),
  "annotations-ignored": () =>
    ok(AnnotationsDiffBaseStorage.make({ ignoredFields: ["spec.nested", "data.k"] })),
  "status-default": () => StatusDiffBaseStorage.make(),
  "rs-custom": () => ok(AnnotationsDiffBaseStorage.make({ prefix: "my-op.example.com" })),
  // Kopf's multi storage builds each part from the essence, which has no kind: no -ofDRS there.
  "rs-multi-custom": () =>
    MultiDiffBaseStorage.make([
      ok(AnnotationsDiffBaseStorage.make({ prefix: "my-op.example.com" })),
      StatusDiffBaseStorage.make(),
    ]),
  "rs-ignored-empty-parents": () =>
    ok(
      AnnotationsDiffBaseStorage.make({
        ignoredFields: ["spec.empty.x", "spec.template.metadata.labels", "spec.replicas.x"],
      }),
    ),
  multi: () =>
    MultiDiffBaseStorage.make([AnnotationsDiffBaseStorage.makeDefault(), StatusDiffBaseStorage.make()]),
};

const PROGRESS: Readonly<Record<string, () => ProgressStorage>> = {
  "smart-default": () => SmartProgressStorage.makeDefault(),
  "smart-custom": () => ok(SmartProgressStorage.make({ prefix: "my-op.example.com" })),
  "annotations-verbose": () => ok(AnnotationsProgressStorage.make({ verbose: true })),
  status: () => StatusProgressStorage.make(),
};

const HANDLER_IDS = [
  "create_fn",
  "create_fn/sub1",
  "retry_fn",
  "fail_fn",
  "x".repeat(50),
  "fn".repeat(40),
  "fn/<lambda>",
];
const handlers = HANDLER_IDS.map((id) => ({ id }));

// The same outcomes as the generator gives to Kopf.
const outcomeFor = (id: string): Outcome.Outcome => {
  if (id.startsWith("retry")) {
    return { final: false, delay: 60, error: { message: "Fehler: \u00fcberlauf \u{1F600}" } };
  }
  if (id.startsWith("fail")) return { final: true, error: { message: "boom \u2603" } };
  if (id === "create_fn") {
    return { final: true, result: { message: "created" }, subrefs: ["create_fn/sub2", "create_fn/sub1"] };
  }
  return { final: true };
};

describe("Kopf 1.45.2 fixtures: essences and last-handled configurations", () => {
  it.each(fixtures.essences.map((e) => [e.name, e] as const))("%s", (name, fixture) => {
    const make = DIFFBASE[name];
    if (make === undefined) throw new Error(`no storage for ${name}`);
    const storage = make();
    const body = fixture.body ?? fixtures.body;
    const essence = storage.build({ body, extraFields: fixture.extra });
    expect(essence).toEqual(fixture.essence);
    const patch = Patch.make(body);
    storage.store({ body, patch, essence });
    // toEqual on strings: the stored JSON must be the same bytes (key order, escapes, newline).
    expect(patch.toMergePatch()).toEqual(fixture.patch);
    const patched = Patch.applyMergePatch(body, patch.toMergePatch());
    expect(ok(storage.fetch({ body: patched }))).toEqual(fixture.essence);
  });
});

describe("Kopf 1.45.2 fixtures: progress records, results, touches and purges", () => {
  it.each(fixtures.progress.map((p) => [p.name, p] as const))("%s", (name, fixture) => {
    const make = PROGRESS[name];
    if (make === undefined) throw new Error(`no storage for ${name}`);
    const storage = make();
    const outcomes = Object.fromEntries(HANDLER_IDS.map((id) => [id, outcomeFor(id)]));
    let state = State.withHandlers(State.withPurpose(State.empty(), "create"), handlers, NOW);
    state = ok(State.withOutcomes(state, outcomes, NOW));
    const patch = Patch.make({});
    State.store(state, { body: {}, patch, storage });
    Outcome.deliverResults(outcomes, patch);
    expect(patch.toMergePatch()).toEqual(fixture.patch);

    const touched = Patch.make({});
    storage.touch({ body: {}, patch: touched, value: "2020-12-31T23:59:59.123456" });
    expect(touched.toMergePatch()).toEqual(fixture.touch);

    const bodyAfter = patch.toMergePatch() as RawBody;
    const reloaded = ok(State.fromStorage({ body: bodyAfter, storage, handlers, now: NOW }));
    const purged = Patch.make(bodyAfter);
    State.purge(reloaded, { body: bodyAfter, patch: purged, storage, handlers });
    expect(purged.toMergePatch()).toEqual(fixture.purge);

    // Records Kopf wrote are read back as they are and are not rewritten.
    const again = Patch.make(bodyAfter);
    State.store(State.withHandlers(State.withPurpose(reloaded, "create"), handlers, NOW), {
      body: bodyAfter,
      patch: again,
      storage,
    });
    expect(again.isEmpty()).toBe(true);
  });
});

describe("Kopf 1.45.2 fixtures: annotation keys", () => {
  it.each(fixtures.keys.map((k) => [k.prefix, k.key, k] as const))("%s / %s", (_, __, fixture) => {
    expect(AnnotationKeys.makeKeys({ prefix: fixture.prefix, v1: true }, fixture.key)).toEqual(fixture.keys);
  });
});

/**
 * CauseInputs (docs/behaviour/causes.md#inputs) with Kopf's default storages and a real registry: extra fields of
 * watching/changing/spawning handlers (not index handlers) in the new essence, `old` from the last-handled-configuration annotation, `new`
 * built with the extra fields, both cleared of the progress storage's own data, the diff, the
 * `initial` flag from the memory, and a decoding failure for a corrupt annotation. Then the
 * detected causes built from them carry the context through.
 */
import { describe, expect, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import { AnnotationsDiffBaseStorage, SmartProgressStorage, StatusProgressStorage } from "@kopf/storage";
import { type RawBody, type RawEvent, type RawEventType, Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import { CauseInputs, ChangeCause, ResourceMemory, SpawningCause, WatchingCause } from "../src/index.ts";
import { context } from "./internal/context.ts";

const FIN = "kopf.zalando.org/KopfFinalizerMarker";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const RESOURCE = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const noop = () => undefined;

/** A registry with handlers on these fields: a field handler, an event handler, a timer, and an index. */
const registryWith = (fields: {
  readonly changing?: string;
  readonly watching?: string;
  readonly spawning?: string;
  readonly indexing?: string;
}): Registry.Registry => {
  const registry = Registry.make();
  registry.on.create("kopfexamples.kopf.dev", noop);
  if (fields.changing) registry.on.field("kopfexamples.kopf.dev", { id: "f", field: fields.changing }, noop);
  if (fields.watching) registry.on.event("kopfexamples.kopf.dev", { id: "e", field: fields.watching }, noop);
  if (fields.spawning) {
    registry.on.timer("kopfexamples.kopf.dev", { id: "t", field: fields.spawning, interval: 1 }, noop);
  }
  if (fields.indexing) registry.on.index("kopfexamples.kopf.dev", { id: "i", field: fields.indexing }, noop);
  return registry;
};

const sources = (
  object: RawBody,
  overrides: Partial<CauseInputs.Sources> & { type?: RawEventType | null } = {},
): CauseInputs.Sources => ({
  event: { type: overrides.type === undefined ? "MODIFIED" : overrides.type, object },
  registry: Registry.make(),
  resource: RESOURCE,
  diffbaseStorage: AnnotationsDiffBaseStorage.makeDefault(),
  progressStorage: SmartProgressStorage.makeDefault(),
  finalizer: FIN,
  memory: ResourceMemory.fresh("ADDED"),
  ...overrides,
});

const inputsOf = (s: CauseInputs.Sources): CauseInputs.CauseInputs => {
  const result = CauseInputs.make(s);
  if (Result.isFailure(result)) throw new Error(result.failure.message);
  return result.success;
};

describe("make", () => {
  const body = { metadata: { name: "x", uid: "u" }, spec: { size: 1 }, status: { phase: "Running" } };

  it("without a stored essence: old is undefined and the diff adds the whole essence", () => {
    const inputs = inputsOf(sources(body));
    expect(inputs.old).toBeUndefined();
    expect(inputs.new).toEqual({ spec: { size: 1 } });
    expect(inputs.diff).toEqual([{ op: "add", field: [], old: null, new: { spec: { size: 1 } } }]);
    expect(ChangeCause.detectReason(inputs).reason).toBe("create");
  });

  it("with the same stored essence: no diff", () => {
    const stored = {
      ...body,
      metadata: { ...body.metadata, annotations: { [LAST_HANDLED]: '{"spec":{"size":1}}\n' } },
    };
    const inputs = inputsOf(sources(stored));
    expect(inputs.old).toEqual({ spec: { size: 1 } });
    expect(inputs.new).toEqual({ spec: { size: 1 } });
    expect(inputs.diff).toEqual([]);
    expect(ChangeCause.detectReason(inputs).reason).toBe("noop");
  });

  it("with a different stored essence: the diff of the changed field", () => {
    const stored = {
      ...body,
      metadata: { ...body.metadata, annotations: { [LAST_HANDLED]: '{"spec":{"size":2}}' } },
    };
    const inputs = inputsOf(sources(stored));
    expect(inputs.diff).toEqual([{ op: "change", field: ["spec", "size"], old: 2, new: 1 }]);
    expect(ChangeCause.detectReason(inputs).reason).toBe("update");
  });

  it.each<[string, Parameters<typeof registryWith>[0], object]>([
    ["no field handlers", {}, { spec: { size: 1 } }],
    ["a field handler", { changing: "status.phase" }, { spec: { size: 1 }, status: { phase: "Running" } }],
    ["an event handler", { watching: "status.phase" }, { spec: { size: 1 }, status: { phase: "Running" } }],
    ["a timer", { spawning: "metadata.name" }, { spec: { size: 1 }, metadata: { name: "x" } }],
    ["an index handler (excluded)", { indexing: "status.phase" }, { spec: { size: 1 } }],
  ])("copies the extra fields of %s into the new essence", (_, fields, essence) => {
    expect(inputsOf(sources(body, { registry: registryWith(fields) })).new).toEqual(essence);
  });

  it("clears the progress storage's own data from both essences", () => {
    const progressStorage = StatusProgressStorage.make();
    const registry = registryWith({ changing: "status" });
    const withProgress = {
      metadata: {
        uid: "u",
        annotations: { [LAST_HANDLED]: '{"spec":{},"status":{"kopf":{"progress":{"fn":{}}},"phase":"A"}}' },
      },
      spec: {},
      status: { kopf: { progress: { fn: { retries: 1 } } }, phase: "A" },
    };
    const inputs = inputsOf(sources(withProgress, { registry, progressStorage }));
    expect(inputs.old).toEqual({ spec: {}, status: { phase: "A" } });
    expect(inputs.new).toEqual({ spec: {}, status: { phase: "A" } });
    expect(inputs.diff).toEqual([]);
  });

  it.each<[RawEventType | null, ResourceMemory.ResourceMemory, boolean]>([
    [null, ResourceMemory.fresh(null), true],
    [null, { noticedByListing: true, fullyHandledOnce: true }, false],
    ["ADDED", ResourceMemory.fresh("ADDED"), false],
  ])("type %s with memory %j ⇒ initial=%s", (type, memory, initial) => {
    const inputs = inputsOf(sources(body, { type, memory }));
    expect(inputs.type).toBe(type);
    expect(inputs.initial).toBe(initial);
    expect(inputs.finalizer).toBe(FIN);
    expect(inputs.body).toBe(body);
  });

  it("fails with a decoding error when the stored essence is corrupt", () => {
    const corrupt = { metadata: { annotations: { [LAST_HANDLED]: "{not json" } } };
    const result = CauseInputs.make(sources(corrupt));
    expect(Result.isFailure(result)).toBe(true);
    if (Result.isFailure(result)) expect(result.failure._tag).toBe("StorageDecodeError");
  });
});

describe("causes built from the inputs", () => {
  const stored = {
    metadata: { uid: "u", annotations: { [LAST_HANDLED]: '{"spec":{"size":2}}' } },
    spec: { size: 1 },
  };

  it("ChangeCause.make detects the reason and carries the essences, diff and context", () => {
    const ctx = context();
    const inputs = inputsOf(sources(stored, { type: null, memory: ResourceMemory.fresh(null) }));
    const cause = ChangeCause.make(inputs, ctx);
    expect(cause).toEqual({
      ...ctx,
      _tag: "ChangingCause",
      body: stored,
      reason: "update",
      initial: true,
      deleted: false,
      diff: inputs.diff,
      old: { spec: { size: 2 } },
      new: { spec: { size: 1 } },
    });
    expect(cause.patch).toBe(ctx.patch);
    expect(cause.logger).toBe(ctx.logger);
    expect(cause.memo).toBe(ctx.memo);
    expect(cause.resource).toBe(ctx.resource);
  });

  it("ChangeCause.make forces initial off for a creation", () => {
    const inputs = inputsOf(sources({ spec: {} }, { type: null, memory: ResourceMemory.fresh(null) }));
    const cause = ChangeCause.make(inputs, context());
    expect(cause.reason).toBe("create");
    expect(cause.initial).toBe(false);
  });

  it.each([
    [stored, true],
    [
      { ...stored, metadata: { ...stored.metadata, annotations: { [LAST_HANDLED]: '{"spec":{"size":1}}' } } },
      false,
    ],
  ])("SpawningCause.make resets idling only on essence changes (%#)", (object, reset) => {
    const inputs = inputsOf(sources(object));
    const ctx = context();
    expect(SpawningCause.make(inputs, ctx)).toEqual({ ...ctx, _tag: "SpawningCause", body: object, reset });
  });

  it.each<RawEventType | null>([null, "ADDED", "MODIFIED", "DELETED"])(
    "WatchingCause.make for %s",
    (type) => {
      const event: RawEvent = { type, object: stored };
      const ctx = context();
      const cause = WatchingCause.make(event, ctx);
      expect(cause).toEqual({ ...ctx, _tag: "WatchingCause", body: stored, type, event });
      expect(cause.event).toBe(event);
    },
  );
});

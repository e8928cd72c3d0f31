/**
 * The causes of one processing cycle against a real registry (docs/behaviour/processing.md#cause-order steps 1, 4, 5, 8 and docs/behaviour/causes.md#handler-selection):
 * the changing and spawning causes built here are accepted by the registry's matching as they
 * are; the finalizer is added, removed or kept depending on mandatory/optional on.delete
 * handlers, label filters, daemons and timers and forever-stopped ids; resume handlers join
 * exactly the initial causes.
 */
import { describe, expect, it } from "@effect/vitest";
import { Matching, Registry } from "@kopf/registry";
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from "@kopf/storage";
import { type RawBody, type RawEventType, Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import { CauseInputs, ChangeCause, FinalizerDecision, ResourceMemory, SpawningCause } from "../src/index.ts";
import { context } from "./internal/context.ts";

const FIN = "kopf.zalando.org/KopfFinalizerMarker";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const RESOURCE = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const KIND = "kopfexamples.kopf.dev";
const noop = () => undefined;

type Setup = (registry: Registry.Registry) => void;

const SETUPS: Readonly<Record<string, Setup>> = {
  "on.create only": (r) => r.on.create(KIND, { id: "c" }, noop),
  "mandatory on.delete": (r) => r.on.delete(KIND, { id: "d" }, noop),
  "optional on.delete": (r) => r.on.delete(KIND, { id: "d", optional: true }, noop),
  "on.delete for other labels": (r) => r.on.delete(KIND, { id: "d", labels: { app: "other" } }, noop),
  "on.delete for our labels": (r) => r.on.delete(KIND, { id: "d", labels: { app: "web" } }, noop),
  daemon: (r) => r.on.daemon(KIND, { id: "dm" }, noop),
  timer: (r) => r.on.timer(KIND, { id: "tm", interval: 1 }, noop),
  "daemon for other labels": (r) => r.on.daemon(KIND, { id: "dm", labels: { app: "other" } }, noop),
};

interface Cycle {
  readonly cause: ChangeCause.ChangeCause;
  readonly decision: FinalizerDecision.FinalizerDecision;
}

/** Steps 1, 4 and 5 of a cycle for one object and event. */
const cycle = (
  setup: Setup,
  body: RawBody,
  options: {
    type?: RawEventType | null;
    memory?: ResourceMemory.ResourceMemory;
    foreverStopped?: ReadonlyArray<string>;
  } = {},
): Cycle => {
  const registry = Registry.make();
  setup(registry);
  const inputs = CauseInputs.make({
    event: { type: options.type === undefined ? "MODIFIED" : options.type, object: body },
    registry,
    resource: RESOURCE,
    diffbaseStorage: AnnotationsDiffBaseStorage.makeDefault(),
    progressStorage: SmartProgressStorage.makeDefault(),
    finalizer: FIN,
    memory: options.memory ?? ResourceMemory.fresh("ADDED"),
  });
  if (Result.isFailure(inputs)) throw new Error(inputs.failure.message);
  const ctx = context();
  const cause = ChangeCause.make(inputs.success, { ...ctx, resource: RESOURCE });
  const spawning = SpawningCause.make(inputs.success, { ...ctx, resource: RESOURCE });
  const changingHandlers = registry.changingFor(RESOURCE);
  const stealth = !Matching.prematchAny(changingHandlers, cause);
  const mustBlock = Matching.requiresFinalizer({
    ...(stealth ? {} : { changing: { handlers: changingHandlers, cause } }),
    spawning: {
      handlers: registry.spawningFor(RESOURCE),
      cause: spawning,
      excluded: new Set(options.foreverStopped ?? []),
    },
  });
  return { cause, decision: FinalizerDecision.decide({ body, finalizer: FIN, mustBlock }) };
};

const object = (finalizers: ReadonlyArray<string>, deleting = false): RawBody => ({
  metadata: {
    uid: "u",
    labels: { app: "web" },
    finalizers,
    annotations: { [LAST_HANDLED]: '{"metadata":{"labels":{"app":"web"}},"spec":{"size":1}}' },
    ...(deleting ? { deletionTimestamp: "2020-12-31T23:59:59Z" } : {}),
  },
  spec: { size: 1 },
});

describe("finalizer decision from the registry's handlers (docs/behaviour/processing.md#cause-order)", () => {
  it.each<[string, ReadonlyArray<string>, "Add" | "Remove" | "Keep"]>([
    ["on.create only", [], "Keep"],
    ["on.create only", [FIN], "Remove"],
    ["mandatory on.delete", [], "Add"],
    ["mandatory on.delete", [FIN], "Keep"],
    ["optional on.delete", [], "Keep"],
    ["optional on.delete", [FIN], "Remove"],
    ["on.delete for other labels", [FIN], "Remove"],
    ["on.delete for our labels", [], "Add"],
    ["daemon", [], "Add"],
    ["timer", ["other"], "Add"],
    ["daemon for other labels", [FIN], "Remove"],
  ])("%s, finalizers %j ⇒ %s", (setup, finalizers, expected) => {
    expect(cycle(SETUPS[setup]!, object(finalizers)).decision._tag).toBe(expected);
  });

  it("a daemon stopped forever no longer requires the finalizer", () => {
    const registry = Registry.make();
    SETUPS.daemon!(registry);
    const id = registry.spawning[0]!.id;
    expect(cycle(SETUPS.daemon!, object([FIN]), { foreverStopped: [id] }).decision._tag).toBe("Remove");
    expect(cycle(SETUPS.daemon!, object([FIN]), { foreverStopped: ["another"] }).decision._tag).toBe("Keep");
  });

  it("a deleting object with a mandatory on.delete is handled, then released when nothing waits", () => {
    const { cause, decision } = cycle(SETUPS["mandatory on.delete"]!, object([FIN], true));
    expect(cause.reason).toBe("delete");
    expect(decision._tag).toBe("Keep");
    const body = object([FIN], true);
    expect(
      FinalizerDecision.decideRelease({ type: "MODIFIED", body, finalizer: FIN, delays: [] }),
    ).toMatchObject({
      _tag: "Remove",
      message: "Removing the finalizer, thus allowing the actual deletion.",
    });
  });
});

describe("handler selection with the detected causes (docs/behaviour/causes.md#handler-selection)", () => {
  const setup: Setup = (r) => {
    r.on.create(KIND, { id: "create" }, noop);
    r.on.update(KIND, { id: "update" }, noop);
    r.on.resume(KIND, { id: "resume" }, noop);
  };
  const changed: RawBody = { ...object([FIN]), spec: { size: 2 } };
  const fresh: RawBody = { metadata: { uid: "u" }, spec: { size: 1 } };

  it.each<[string, RawBody, ResourceMemory.ResourceMemory, string, ReadonlyArray<string>]>([
    ["a new object after a restart", fresh, ResourceMemory.fresh(null), "create", ["create"]],
    ["an unchanged object after a restart", object([FIN]), ResourceMemory.fresh(null), "resume", ["resume"]],
    ["a changed object after a restart", changed, ResourceMemory.fresh(null), "update", ["update", "resume"]],
    [
      "a changed object, already resumed",
      changed,
      { noticedByListing: true, fullyHandledOnce: true },
      "update",
      ["update"],
    ],
    ["an unchanged object seen by the watch", object([FIN]), ResourceMemory.fresh("ADDED"), "noop", []],
  ])("%s ⇒ %s running %j", (_, body, memory, reason, ids) => {
    const registry = Registry.make();
    setup(registry);
    const { cause } = cycle(setup, body, { type: null, memory });
    expect(cause.reason).toBe(reason);
    expect(Matching.changingHandlers(registry.changingFor(RESOURCE), cause).map((h) => h.id)).toEqual(ids);
  });
});

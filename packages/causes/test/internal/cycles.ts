/**
 * Scenes of one processing cycle for the plan's tests: a real registry with the handlers of a
 * setup, an object in a given state, the consistency state of its queue, and a script of what
 * the interpreter observes; the plan is traced against the script and summarised in one line.
 */
import { Registry } from "@kopf/registry";
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from "@kopf/storage";
import { Body, Patch, type RawBody, type RawEventType, Resource } from "@kopf/structs";
import { ChangeCause, CyclePlan, CycleSelection, ResourceMemory } from "../../src/index.ts";
import { context } from "./context.ts";

export const FIN = "kopf.zalando.org/KopfFinalizerMarker";
export const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const RESOURCE = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const KIND = "kopfexamples.kopf.dev";
const noop = () => undefined;

/** The handlers registered for the kind. */
export const SETUPS = {
  /** on.create and on.update: nothing needs the finalizer. */
  cu: (r: Registry.Registry) => {
    r.on.create(KIND, { id: "c" }, noop);
    r.on.update(KIND, { id: "u" }, noop);
  },
  /** plus a mandatory on.delete: the finalizer is needed. */
  cud: (r: Registry.Registry) => {
    SETUPS.cu(r);
    r.on.delete(KIND, { id: "d" }, noop);
  },
  /** plus an optional on.delete: no finalizer needed, the handler runs if the object is seen deleting. */
  optional: (r: Registry.Registry) => {
    SETUPS.cu(r);
    r.on.delete(KIND, { id: "d", optional: true }, noop);
  },
  /** plus on.event and on.resume. */
  event: (r: Registry.Registry) => {
    SETUPS.cud(r);
    r.on.event(KIND, { id: "e" }, noop);
    r.on.resume(KIND, { id: "r" }, noop);
  },
  /** plus a daemon (which needs the finalizer too). */
  daemon: (r: Registry.Registry) => {
    SETUPS.cud(r);
    r.on.daemon(KIND, { id: "dm" }, noop);
  },
  /** Only handlers for other labels: stealth mode. */
  stealth: (r: Registry.Registry) => {
    r.on.create(KIND, { id: "c", labels: { app: "other" } }, noop);
  },
} as const;

/** The consistency states of the object's queue. */
export const CONSISTENCY = {
  /** No own patch is awaited. */
  none: { consistencyTime: undefined, carried: false },
  /** Our last patch's echo is awaited until time 1000. */
  awaited: { consistencyTime: 1000, carried: false },
  /** A patch that met a conflict is carried over from the previous cycle. */
  carried: { consistencyTime: undefined, carried: true },
} as const;

/** The stored essences: none, the object's own, another one. */
export type Stored = "none" | "same" | "other";

export interface Scene {
  readonly setup: keyof typeof SETUPS;
  readonly type?: RawEventType | null;
  readonly finalizers?: ReadonlyArray<string> | undefined;
  /** `undefined`: no deletionTimestamp; `null`: an explicit null. */
  readonly deletion?: string | null | undefined;
  readonly stored?: Stored;
  /** Seen by the initial listing, never handled fully (a resuming object). */
  readonly listed?: boolean;
  readonly consistency?: keyof typeof CONSISTENCY;
  readonly engines?: { readonly indexing: boolean; readonly ownership: boolean };
  /** A stored diff-base that cannot be decoded. */
  readonly corrupt?: boolean;
}

const ESSENCE = '{"spec":{"field":"value"}}';

export const body = (scene: Scene): RawBody => {
  const stored = scene.stored ?? "same";
  const annotations = scene.corrupt
    ? { [LAST_HANDLED]: "{not json" }
    : stored === "none"
      ? undefined
      : { [LAST_HANDLED]: stored === "same" ? ESSENCE : '{"spec":{"field":"other"}}' };
  return {
    metadata: {
      name: "e1",
      uid: "u1",
      resourceVersion: "1",
      ...(scene.finalizers === undefined ? {} : { finalizers: [...scene.finalizers] }),
      ...(scene.deletion === undefined ? {} : { deletionTimestamp: scene.deletion }),
      ...(annotations === undefined ? {} : { annotations }),
    },
    spec: { field: "value" },
  } as RawBody;
};

/** A cycle of the scene: its facts, and the handlers selected from a real registry. */
export interface Cycle {
  readonly facts: CyclePlan.Facts;
  readonly selection: CycleSelection.Selection;
}

/** The cycle of a scene. */
export const cycleOf = (scene: Scene): Cycle => {
  const registry = Registry.make();
  SETUPS[scene.setup](registry);
  const type = scene.type === undefined ? "MODIFIED" : scene.type;
  const object = body(scene);
  const consistency = CONSISTENCY[scene.consistency ?? "none"];
  const ctx = { ...context(), resource: RESOURCE };
  const selection = CycleSelection.select({
    event: { type, object },
    registry,
    resource: RESOURCE,
    persistence: {
      finalizer: FIN,
      diffbaseStorage: AnnotationsDiffBaseStorage.makeDefault(),
      progressStorage: SmartProgressStorage.makeDefault(),
    },
    memory: ResourceMemory.fresh(scene.listed ? null : "ADDED"),
    context: ctx,
    localLogger: () => ctx.logger,
    spawns: true,
  });
  const facts: CyclePlan.Facts = {
    type,
    body: object,
    finalizer: FIN,
    consistencyTime: consistency.consistencyTime,
    patchInitiallyEmpty: !consistency.carried,
    engines: scene.engines ?? { indexing: false, ownership: false },
  };
  return { facts, selection };
};

/** What the interpreter observes. */
export interface Script {
  readonly claimed?: boolean;
  /** The `on.event` handlers wrote results into the patch. */
  readonly eventResults?: boolean;
  readonly spawnedDelays?: ReadonlyArray<number>;
  readonly excluded?: ReadonlyArray<string>;
  readonly sleptFully?: boolean;
  /** What a re-read finds on the server: the processed version (default), a newer one, or nothing. */
  readonly refreshed?: "same" | "newer" | "failed";
  readonly changed?: "done" | "skipped" | "pending";
  readonly changedDelays?: ReadonlyArray<number>;
  readonly holds?: boolean;
  /** What sending the patch did (default: applied). */
  readonly patched?: CyclePlan.Patched["_tag"];
  /** The delayed handlers' sleep was cut short by a new event. */
  readonly wokeEarly?: boolean;
}

const patched = (tag: CyclePlan.Patched["_tag"]): CyclePlan.Patched => {
  switch (tag) {
    case "NothingToPatch":
    case "Gone":
      return { _tag: tag };
    case "Applied":
      return { _tag: tag, resourceVersion: "2" };
    case "Conflict":
      return { _tag: tag, resourceVersion: "2", pending: new Patch.Patch(undefined, { fns: [] }) };
    case "Invalid":
      return { _tag: tag, resourceVersion: "2", message: "bad finalizer", payload: "[]" };
  }
};

/** The version a re-read finds when the server has a newer state than the processed one. */
export const NEWER_VERSION = "99";

/** The observation the script gives for an instruction. */
export const answer =
  (cycle: Cycle, script: Script) =>
  (instruction: CyclePlan.Instruction): CyclePlan.Observation => {
    const patchEmpty = cycle.facts.patchInitiallyEmpty && !script.eventResults;
    switch (instruction._tag) {
      case "Select":
        return { _tag: "Selected", selection: cycle.selection };
      case "Claim":
        return { _tag: "Claimed", claimed: script.claimed ?? true };
      case "RunWatching":
        return { _tag: "Watched", patchEmpty };
      case "Spawn":
        return {
          _tag: "Spawned",
          delays: script.spawnedDelays ?? [],
          excluded: new Set(script.excluded ?? []),
          patchEmpty,
        };
      case "Wait":
        return { _tag: "Waited", sleptFully: script.sleptFully ?? true };
      case "Refresh": {
        const refreshed = script.refreshed ?? "same";
        return {
          _tag: "Refreshed",
          resourceVersion:
            refreshed === "same"
              ? Body.resourceVersion(cycle.facts.body)
              : refreshed === "newer"
                ? NEWER_VERSION
                : undefined,
        };
      }
      case "RunChanging": {
        const changed = script.changed ?? "done";
        return {
          _tag: "Changed",
          done: changed === "done",
          skipped: changed === "skipped",
          delays: script.changedDelays ?? [],
        };
      }
      case "Fence":
        return { _tag: "Held", holds: script.holds ?? true };
      case "Patch":
        return { _tag: "Patched", outcome: patched(script.patched ?? "Applied") };
      case "Sleep":
        return script.wokeEarly
          ? { _tag: "Slept", fully: false, left: instruction.seconds / 2 }
          : { _tag: "Slept", fully: true, left: 0 };
      case "Touch":
        return { _tag: "Touched", resourceVersion: "3" };
      default:
        return { _tag: "Performed" };
    }
  };

/** One instruction in a word. */
const word = (cycle: Cycle, i: CyclePlan.Instruction): string | undefined => {
  switch (i._tag) {
    case "Index":
      return "index";
    case "Claim":
      return "claim";
    case "Select":
      return undefined;
    case "RunWatching":
      return "watch";
    case "Fail":
      return "fail";
    case "Spawn":
      return "spawn";
    case "Finalizer":
      return `finalizer:${i.decision._tag.toLowerCase()}`;
    case "Wait":
      return "wait";
    case "Refresh":
      return "refresh";
    case "Log": {
      if (i.level !== "Debug") return i.level.toLowerCase();
      const reason = cycle.selection.changing?.cause.reason;
      if (reason !== undefined && i.message === ChangeCause.reactorMessage(reason)) return `log:${reason}`;
      const skipped = /^Sleeping was skipped because of the patch, (\S+) seconds left\.$/.exec(i.message);
      if (skipped !== null) return `skip(${skipped[1]})`;
      return i.message.startsWith("Sleeping was interrupted") ? "interrupted" : undefined;
    }
    case "RunChanging":
      return `run:${i.cause.reason}[${i.handlers.map((h) => h.id).join(",")}]`;
    case "StoreDiffBase":
      return "diff-base";
    case "Remember":
      if (i.change._tag === "MarkFullyHandled") return "handled";
      return i.change.pending === undefined ? undefined : "carry";
    case "Fence":
      return "fence";
    case "Patch":
      return "patch";
    case "Post":
      return `post:${i.event.reason}`;
    case "Sleep":
      return `sleep(${i.seconds})`;
    case "Touch":
      return "touch";
    case "Finish":
      return i.outcome._tag === "Applied" ? undefined : i.outcome._tag.toLowerCase();
  }
};

/** The scene's cycle under the script, in words. */
export const summary = (scene: Scene, script: Script = {}): string => {
  const cycle = cycleOf(scene);
  return CyclePlan.trace(cycle.facts, answer(cycle, script))
    .map((i) => word(cycle, i))
    .filter((w) => w !== undefined)
    .join(" ");
};

/**
 * Which handlers one processing cycle may invoke, with which contexts, as values: the `on.event`
 * handlers matching the event (their cause carries a logger whose lines are never posted as
 * events), the daemons and timers with their spawning cause, and the changing cause with all the
 * changing handlers of the kind — or none in stealth mode, when no changing handler prematches
 * the object. Pure: {@link select} only reads the registry, the event and the object's memory.
 *
 * The inputs of the spawning and changing causes (the essences and their diff) fail to build
 * when the stored diff-base cannot be decoded; the failure is kept as a value, and the cycle's
 * plan (`CyclePlan`) fails at the point where the causes are needed — after the `on.event`
 * handlers, which need no essence.
 */
import {
  type ChangingHandler,
  type Logger,
  Matching,
  type Registry,
  type SpawningHandler,
  type WatchingHandler,
} from "@kopf/registry";
import type { StorageDecodeError } from "@kopf/storage";
import type { RawEvent, Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import * as CauseInputs from "./CauseInputs.ts";
import * as ChangeCause from "./ChangeCause.ts";
import type { ResourceContext } from "./ResourceCause.ts";
import type * as ResourceMemory from "./ResourceMemory.ts";
import * as SpawningCause from "./SpawningCause.ts";
import * as WatchingCause from "./WatchingCause.ts";

/** The handlers of a cycle and the causes they are invoked with. */
export interface Selection {
  /** The `on.event` handlers matching the event; `undefined` when the kind has none. */
  readonly watching:
    | { readonly cause: WatchingCause.WatchingCause; readonly handlers: ReadonlyArray<WatchingHandler> }
    | undefined;
  /** The inputs of the spawning and changing causes, or why they cannot be built. */
  readonly inputs: Result.Result<CauseInputs.CauseInputs, StorageDecodeError>;
  /** The daemons and timers of the kind; `undefined` without any, or without a spawning engine. */
  readonly spawning:
    | { readonly cause: SpawningCause.SpawningCause; readonly handlers: ReadonlyArray<SpawningHandler> }
    | undefined;
  /**
   * The changing cause and all changing handlers of the kind (whose progress is loaded and
   * purged); `undefined` without changing handlers or in stealth mode.
   */
  readonly changing:
    | { readonly cause: ChangeCause.ChangeCause; readonly owned: ReadonlyArray<ChangingHandler> }
    | undefined;
}

/** Everything {@link select} reads. */
export interface Sources {
  readonly event: RawEvent;
  readonly registry: Pick<
    Registry.Registry,
    "hasHandlers" | "watchingFor" | "spawningFor" | "changingFor" | "extraFields"
  >;
  readonly resource: Resource.Resource;
  readonly persistence: Pick<CauseInputs.Sources, "finalizer" | "diffbaseStorage" | "progressStorage">;
  readonly memory: ResourceMemory.ResourceMemory;
  /** The per-object context the spawning and changing causes carry. */
  readonly context: ResourceContext;
  /** A logger whose lines are not posted as events, for `on.event`; made only when needed. */
  readonly localLogger: () => Logger;
  /** Whether a spawning engine runs daemons and timers; without one they are ignored altogether. */
  readonly spawns: boolean;
}

/**
 * Selects the handlers of a cycle and builds their causes.
 *
 * @example
 * ```ts
 * import { CycleSelection } from "@kopf/causes";
 * const selection = CycleSelection.select({ event, registry, resource, persistence, memory,
 *   context, localLogger: () => logger, spawns: true });
 * selection.changing?.cause.reason // "create" for a new object with changing handlers
 * ```
 */
export const select = (sources: Sources): Selection => {
  const { event, registry, resource, context } = sources;
  const watching = registry.hasHandlers("watching", resource)
    ? watchingSelection(event, registry.watchingFor(resource), { ...context, logger: sources.localLogger() })
    : undefined;
  const inputs = CauseInputs.make({
    event,
    registry,
    resource,
    ...sources.persistence,
    memory: sources.memory,
  });
  if (Result.isFailure(inputs)) return { watching, inputs, spawning: undefined, changing: undefined };

  const spawningHandlers = sources.spawns ? registry.spawningFor(resource) : [];
  const spawning =
    spawningHandlers.length > 0
      ? { cause: SpawningCause.make(inputs.success, context), handlers: spawningHandlers }
      : undefined;
  const owned = registry.changingFor(resource);
  const made = owned.length > 0 ? ChangeCause.make(inputs.success, context) : undefined;
  const changing =
    made !== undefined && Matching.prematchAny(owned, made) ? { cause: made, owned } : undefined;
  return { watching, inputs, spawning, changing };
};

const watchingSelection = (
  event: RawEvent,
  handlers: ReadonlyArray<WatchingHandler>,
  context: ResourceContext,
): Selection["watching"] => {
  const cause = WatchingCause.make(event, context);
  return { cause, handlers: Matching.watchingHandlers(handlers, cause) };
};

/**
 * Whether the object needs our finalizer, given the daemons and timers stopped forever for it
 * (the spawning engine's answer): a matching daemon or timer not stopped forever, or a
 * prematching non-optional `on.delete` handler.
 *
 * @example
 * ```ts
 * CycleSelection.requiresFinalizer(selection, new Set()) // true with a mandatory on.delete handler
 * ```
 */
export const requiresFinalizer = (selection: Selection, excluded: ReadonlySet<string>): boolean => {
  const { changing, spawning } = selection;
  return Matching.requiresFinalizer({
    ...(changing === undefined ? {} : { changing: { handlers: changing.owned, cause: changing.cause } }),
    ...(spawning === undefined ? {} : { spawning: { ...spawning, excluded } }),
  });
};

/**
 * The progress of all handlers of one object for one cause (Kopf's `progression.State`, spec
 * docs/behaviour/progress.md#handler-state and docs/behaviour/processing.md#changing-causes): loaded from storage as passive states, activated for the handlers of the
 * cause, advanced by outcomes, summarised (`done`, `delays`, `counts`, `extras`), and stored
 * or purged. States are immutable values; every transition returns a new one.
 */
import type { IsoTime, RawBody } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import * as HandlerState from "./HandlerState.ts";
import type { ProgressStorage } from "./internal/progressStorageApi.ts";
import type { Outcome } from "./Outcome.ts";
import type { StorageDecodeError } from "./StorageError.ts";

/** Anything with a handler id (registry handlers qualify). */
export interface HandlerRef {
  readonly id: string;
}

/** The states of the object's handlers by id (in insertion order) and the cycle's purpose. */
export interface State {
  readonly purpose: string | null;
  readonly handlers: ReadonlyMap<string, HandlerState.HandlerState>;
}

/** Handler tallies: finished successfully, failed permanently, still running. */
export interface Counters {
  readonly success: number;
  readonly failure: number;
  readonly running: number;
}

/** Outcomes were given for handlers the state does not know (a framework bug). */
export class StateError extends Data.TaggedError("StateError")<{
  readonly reason: "UnknownHandlers";
  readonly handlerIds: ReadonlyArray<string>;
  readonly message: string;
}> {}

const MICROS_PER_SECOND = 1_000_000;

const make = (handlers: ReadonlyMap<string, HandlerState.HandlerState>, purpose: string | null): State => ({
  purpose,
  handlers,
});

/**
 * A state with no handlers and no purpose.
 *
 * @example
 * ```ts
 * State.isDone(State.empty()) // true
 * ```
 */
export const empty = (): State => make(new Map(), null);

/**
 * Load the records of the given (owned) handlers as passive states; records of other handlers
 * are not looked at.
 *
 * @example
 * ```ts
 * const state = State.fromStorage({ body, storage, handlers: [{ id: "create_fn" }], now })
 * ```
 */
export const fromStorage = (args: {
  readonly body: RawBody;
  readonly storage: ProgressStorage;
  readonly handlers: Iterable<HandlerRef>;
  readonly now: IsoTime.Micros;
}): Result.Result<State, StorageDecodeError> => {
  // A plain loop (run for every handler of every cycle): the first failure ends it.
  const states = new Map<string, HandlerState.HandlerState>();
  for (const { id } of args.handlers) {
    if (states.has(id)) continue;
    const record = args.storage.fetch({ key: id, body: args.body });
    if (Result.isFailure(record)) return Result.fail(record.failure);
    if (record.success === undefined) continue;
    const state = HandlerState.fromStorage(record.success, args.now, id);
    if (Result.isFailure(state)) return Result.fail(state.failure);
    states.set(id, state.success);
  }
  return Result.succeed(make(states, null));
};

/**
 * Set the cycle's purpose; the given handlers (if present in the state) are re-purposed too.
 *
 * @example
 * ```ts
 * State.withPurpose(state, "update", [{ id: "fn" }])
 * ```
 */
export const withPurpose = (
  state: State,
  purpose: string | null,
  handlers: Iterable<HandlerRef> = [],
): State => {
  const states = new Map(state.handlers);
  for (const { id } of handlers) {
    const current = states.get(id);
    if (current !== undefined) states.set(id, HandlerState.withPurpose(current, purpose));
  }
  return make(states, purpose);
};

/**
 * Activate the given handlers: known ones become active, new ones start now with the cycle's
 * purpose.
 *
 * @example
 * ```ts
 * State.withHandlers(State.withPurpose(state, "create"), [{ id: "fn" }], now)
 * ```
 */
export const withHandlers = (state: State, handlers: Iterable<HandlerRef>, now: IsoTime.Micros): State => {
  const states = new Map(state.handlers);
  for (const { id } of handlers) {
    const current = states.get(id);
    states.set(
      id,
      current === undefined ? HandlerState.fromScratch(now, state.purpose) : HandlerState.asActive(current),
    );
  }
  return make(states, state.purpose);
};

/**
 * Apply the outcomes of this cycle's attempts. Outcomes for unknown handlers are an error.
 *
 * @example
 * ```ts
 * State.withOutcomes(state, new Map([["fn", Outcome.success()]]), now)
 * ```
 */
export const withOutcomes = (
  state: State,
  outcomes: ReadonlyMap<string, Outcome> | Readonly<Record<string, Outcome>>,
  now: IsoTime.Micros,
): Result.Result<State, StateError> => {
  const byId: ReadonlyMap<string, Outcome> =
    outcomes instanceof Map ? outcomes : new Map(Object.entries(outcomes));
  const unknown = [...byId.keys()].filter((id) => !state.handlers.has(id));
  if (unknown.length > 0) {
    return Result.fail(
      new StateError({
        reason: "UnknownHandlers",
        handlerIds: unknown,
        message: `Unexpected outcomes for unknown handlers: ${JSON.stringify(unknown)}`,
      }),
    );
  }
  const states = new Map<string, HandlerState.HandlerState>();
  for (const [id, current] of state.handlers) {
    const outcome = byId.get(id);
    states.set(id, outcome === undefined ? current : HandlerState.withOutcome(current, outcome, now));
  }
  return Result.succeed(make(states, state.purpose));
};

/**
 * Drop succeeded handlers (used by indexing). As in Kopf, the result has no purpose.
 *
 * @example
 * ```ts
 * State.withoutSuccesses(state)
 * ```
 */
export const withoutSuccesses = (state: State): State =>
  make(new Map([...state.handlers].filter(([, handler]) => !handler.success)), null);

const active = (state: State): Array<HandlerState.HandlerState> =>
  [...state.handlers.values()].filter((handler) => handler.active);

/**
 * All active handlers are finished (no active handlers counts as done).
 *
 * @example
 * ```ts
 * if (State.isDone(state)) State.purge(state, { body, patch, storage, handlers })
 * ```
 */
export const isDone = (state: State): boolean => active(state).every(HandlerState.isFinished);

/**
 * Seconds to wait for each active unfinished handler: until its `delayed` time (never
 * negative), or 0 if not delayed.
 *
 * @example
 * ```ts
 * State.delays(state, now) // [0, 59.5]
 * ```
 */
export const delays = (state: State, now: IsoTime.Micros): ReadonlyArray<number> =>
  active(state)
    .filter((handler) => !HandlerState.isFinished(handler))
    .map((handler) =>
      handler.delayed === null ? 0 : Math.max(0, (handler.delayed - now) / MICROS_PER_SECOND),
    );

/**
 * The shortest of {@link delays}, or `null` when nothing waits.
 *
 * @example
 * ```ts
 * State.delay(state, now) // 60 for a handler retried in a minute
 * ```
 */
export const delay = (state: State, now: IsoTime.Micros): number | null => {
  const all = delays(state, now);
  return all.length === 0 ? null : Math.min(...all);
};

const tally = (handlers: ReadonlyArray<HandlerState.HandlerState>): Counters => ({
  success: handlers.filter((handler) => handler.success).length,
  failure: handlers.filter((handler) => handler.failure).length,
  running: handlers.filter((handler) => !HandlerState.isFinished(handler)).length,
});

/**
 * Tallies over the handlers of the current purpose (and those with no purpose); over all
 * handlers when the state has no purpose.
 *
 * @example
 * ```ts
 * const { success, failure } = State.counts(state) // for "… is processed: N succeeded; N failed."
 * ```
 */
export const counts = (state: State): Counters =>
  tally(
    [...state.handlers.values()].filter(
      (handler) => state.purpose === null || handler.purpose === null || handler.purpose === state.purpose,
    ),
  );

/**
 * Tallies per foreign purpose: handlers left over from a cause that another cause superseded
 * (e.g. an unfinished creation when a deletion arrives).
 *
 * @example
 * ```ts
 * State.extras(state) // { create: { success: 1, failure: 0, running: 1 } }
 * ```
 */
export const extras = (state: State): Readonly<Record<string, Counters>> => {
  const byPurpose = new Map<string, Array<HandlerState.HandlerState>>();
  for (const handler of state.handlers.values()) {
    if (handler.purpose === null || handler.purpose === state.purpose) continue;
    byPurpose.set(handler.purpose, [...(byPurpose.get(handler.purpose) ?? []), handler]);
  }
  return Object.fromEntries([...byPurpose].map(([purpose, handlers]) => [purpose, tally(handlers)]));
};

export { purge, store } from "./internal/stateRecords.ts";

/**
 * How a processing cycle of a changing cause uses the handler states (docs/behaviour/processing.md#changing-causes, steps 2–5):
 * `begin` loads the owned handlers' progress, sets the cause's purpose, activates the cause's
 * handlers and deals with causes it supersedes; `finish` applies the attempts' outcomes, stores
 * the progress and the results, and purges everything once the cause is done. Pure except for
 * writing into the cycle's patch; "now" is an argument.
 */
import type { IsoTime, RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import type { PatchLike, ProgressStorage } from "./internal/progressStorageApi.ts";
import * as Outcome from "./Outcome.ts";
import * as State from "./State.ts";
import type { StorageDecodeError } from "./StorageError.ts";

/** What `begin` needs: the object, the cycle's patch, the storage and the handlers. */
export interface BeginArgs {
  readonly body: RawBody;
  readonly patch: PatchLike;
  readonly storage: ProgressStorage;
  /** All changing handlers of the resource kind (whose records this operator owns). */
  readonly ownedHandlers: ReadonlyArray<State.HandlerRef>;
  /** The handlers selected for this cause. */
  readonly causeHandlers: ReadonlyArray<State.HandlerRef>;
  /** The cause's reason: `create`, `update`, `delete` or `resume`. */
  readonly purpose: string;
  readonly now: IsoTime.Micros;
}

/** A cause superseded by the current one, with its tallies (for Kopf's log line). */
export interface Superseded {
  readonly purpose: string;
  readonly counts: State.Counters;
}

/** The state to run the cause's handlers with, and the causes it superseded. */
export interface Begun {
  readonly state: State.State;
  readonly superseded: ReadonlyArray<Superseded>;
}

/**
 * Steps 2–3 of docs/behaviour/processing.md#changing-causes: load the owned handlers' states, set the purpose, activate the cause's
 * handlers; report every other purpose found (a superseded cause: "Creation is superseded by
 * deletion: …") and re-purpose the cause's handlers; if states of another purpose remain, purge
 * all owned records so that the new cause starts afresh (its own states are re-stored later).
 *
 * @example
 * ```ts
 * const begun = Progression.begin({ body, patch, storage, ownedHandlers, causeHandlers, purpose: "delete", now })
 * // Result<{ state, superseded: [{ purpose: "create", counts: { success: 1, failure: 0, running: 1 } }] }, …>
 * ```
 */
export const begin = (args: BeginArgs): Result.Result<Begun, StorageDecodeError> =>
  Result.map(
    State.fromStorage({
      body: args.body,
      storage: args.storage,
      handlers: args.ownedHandlers,
      now: args.now,
    }),
    (loaded) => {
      let state = State.withHandlers(State.withPurpose(loaded, args.purpose), args.causeHandlers, args.now);
      const superseded = Object.entries(State.extras(state)).map(([purpose, counts]) => ({
        purpose,
        counts,
      }));
      if (superseded.length > 0) state = State.withPurpose(state, args.purpose, args.causeHandlers);
      if (Object.keys(State.extras(state)).length > 0) {
        State.purge(state, {
          body: args.body,
          patch: args.patch,
          storage: args.storage,
          handlers: args.ownedHandlers,
        });
      }
      return { state, superseded };
    },
  );

/** What `finish` needs besides the state: the outcomes of this cycle's attempts. */
export interface FinishArgs {
  readonly state: State.State;
  readonly outcomes: ReadonlyMap<string, Outcome.Outcome> | Readonly<Record<string, Outcome.Outcome>>;
  readonly body: RawBody;
  readonly patch: PatchLike;
  readonly storage: ProgressStorage;
  readonly ownedHandlers: ReadonlyArray<State.HandlerRef>;
  readonly now: IsoTime.Micros;
}

/** The state after the cycle, whether the cause is done, what to wait for, and the tallies. */
export interface Finished {
  readonly state: State.State;
  readonly done: boolean;
  /** Seconds until each unfinished handler may run again (empty when done). */
  readonly delays: ReadonlyArray<number>;
  /** For "Creation is processed: N succeeded; N failed." when done. */
  readonly counts: State.Counters;
}

/**
 * Step 5 of docs/behaviour/processing.md#changing-causes: apply the outcomes, store the changed records, deliver the results into the
 * status, and, when every handler of the cause is finished, purge all owned records.
 *
 * @example
 * ```ts
 * const finished = Progression.finish({ state: begun.state, outcomes, body, patch, storage, ownedHandlers, now })
 * // Result<{ done: true, delays: [], counts: { success: 2, failure: 0, running: 0 }, … }, StateError>
 * ```
 */
export const finish = (args: FinishArgs): Result.Result<Finished, State.StateError> =>
  Result.map(State.withOutcomes(args.state, args.outcomes, args.now), (state) => {
    const target = { body: args.body, patch: args.patch, storage: args.storage };
    State.store(state, target);
    Outcome.deliverResults(args.outcomes, args.patch);
    const done = State.isDone(state);
    if (done) State.purge(state, { ...target, handlers: args.ownedHandlers });
    return { state, done, delays: State.delays(state, args.now), counts: State.counts(state) };
  });

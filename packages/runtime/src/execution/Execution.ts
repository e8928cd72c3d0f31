/**
 * The execution engine's entry points for the reactor: one processing cycle of a changing
 * cause (Kopf's `process_changing_cause` for handler reasons, docs/behaviour/processing.md#changing-causes steps 2–5, with docs/behaviour/processing.md#lifecycles, docs/behaviour/processing.md#errors-and-retries, docs/behaviour/processing.md#sub-handlers
 * and docs/behaviour/handler-context.md#results) and of a watching cause (`on.event`, docs/behaviour/processing.md#cause-order).
 *
 * A changing cycle loads the progress of the resource's changing handlers, reports and purges
 * causes superseded by this one, runs the awakened handlers chosen by the lifecycle (with
 * sub-handlers), stores their progress and results into the cause's patch, and, when all are
 * finished, logs "… is processed" and purges their progress. The cycle's plan (`CyclePlan`)
 * folds `done`, `skipped` and `delays` into its next steps: the diff-base, the memory, the
 * release of a deleted object and the earliest delay.
 */
import { ChangeCause } from "@kopf/causes";
import {
  type ChangingHandler,
  type HandlerCause,
  HandlerContext,
  type Lifecycle,
  Lifecycles,
  type WatchingHandler,
} from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import { Outcome, State, type StorageDecodeError } from "@kopf/storage";
import * as Effect from "effect/Effect";
import * as LogLevel from "effect/LogLevel";
import * as References from "effect/References";
import * as Result from "effect/Result";
import * as Tracing from "../Tracing.ts";
import { executeHandlersOnce } from "./Handling.ts";
import { nowMicros } from "./internal/fiberClock.ts";
import * as Subhandling from "./Subhandling.ts";

/** One cycle of a changing cause. */
export interface ChangingRun {
  /**
   * The cause; its `logger`, `memo`, `indices` and `patch` are what the handlers get (every
   * handler invocation gets its own fresh sub-registry).
   */
  readonly cause: HandlerCause.ChangingCause;
  /** The handlers selected for the cause (`Matching.changingHandlers`), in registration order. */
  readonly handlers: ReadonlyArray<ChangingHandler>;
  /**
   * All changing handlers of the resource kind (`registry.changingFor(resource)`): whose
   * progress is loaded and purged. Defaults to `handlers`.
   */
  readonly owned?: ReadonlyArray<ChangingHandler> | undefined;
  /** The progress as loaded from storage (passive states); loaded from `owned` when absent. */
  readonly state?: State.State | undefined;
  /** Default: `Lifecycles.defaultLifecycle` (asap). */
  readonly lifecycle?: Lifecycle | undefined;
  /** Default: the `OperatorSettings` in the context. */
  readonly settings?: OperatorSettings | undefined;
}

/** What a changing cycle leaves for the reactor. */
export interface ChangingResult {
  /** The progress after this cycle's outcomes (stored or purged into the patch already). */
  readonly state: State.State;
  /** This cycle's outcomes by handler id (results already delivered into the patch). */
  readonly outcomes: ReadonlyMap<string, Outcome.Outcome>;
  /** Seconds until each unfinished handler may run again (empty when done). */
  readonly delays: ReadonlyArray<number>;
  /** All the cause's handlers are finished. */
  readonly done: boolean;
  /** The cause had no handlers to run (the diff-base is stored as when done). */
  readonly skipped: boolean;
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

const render = (value: unknown): string => JSON.stringify(value) ?? String(value);

/**
 * Runs one cycle of a changing cause (handler reasons only: `create`, `update`, `delete`,
 * `resume`; other reasons return at once with nothing done).
 *
 * @example
 * const owned = registry.changingFor(cause.resource)
 * const handlers = Matching.changingHandlers(owned, cause)
 * const { delays, done, skipped } = yield* Execution.runChanging({ cause, handlers, owned })
 */
export const runChanging = (
  run: ChangingRun,
): Effect.Effect<ChangingResult, StorageDecodeError | State.StateError> =>
  // The steps around the handlers are plain code in the cycle's fiber: one effect before them.
  Effect.withFiber<ChangingResult, StorageDecodeError | State.StateError>((fiber) => {
    const { cause } = run;
    const settings = run.settings ?? fiber.getRef(OperatorSettings);
    const lifecycle = run.lifecycle ?? Lifecycles.defaultLifecycle;
    const storage = settings.persistence.progressStorage;
    const owned = run.owned ?? run.handlers;
    const logger = cause.logger;
    const nothing = { state: State.empty(), outcomes: new Map(), delays: [] };
    if (!HandlerContext.HANDLER_REASONS.includes(cause.reason))
      return Effect.succeed({ ...nothing, done: false, skipped: false });

    const title = ChangeCause.title(cause.reason);
    Tracing.causeNow(fiber, cause.reason);
    const loadedAt = nowMicros(fiber);
    const loaded =
      run.state === undefined
        ? State.fromStorage({ body: cause.body, storage, handlers: owned, now: loadedAt })
        : Result.succeed(run.state);
    if (Result.isFailure(loaded)) return Effect.fail(loaded.failure);
    let state = State.withHandlers(State.withPurpose(loaded.success, cause.reason), run.handlers, loadedAt);

    // Causes superseded by this one: reported, their handlers re-purposed if selected again.
    for (const [purpose, counters] of Object.entries(State.extras(state))) {
      logger.info(
        `${capitalize(ChangeCause.title(purpose as HandlerCause.ChangingCause["reason"]) ?? purpose)} is superseded by ${title}: ` +
          `${counters.success} succeeded; ${counters.failure} failed; ${counters.running} left to the moment.`,
      );
      state = State.withPurpose(state, cause.reason, run.handlers);
    }
    // What was not re-purposed is irrelevant now: a fresh start for the new purpose.
    if (Object.keys(State.extras(state)).length > 0) {
      State.purge(state, { body: cause.body, patch: cause.patch, storage, handlers: owned });
    }

    // Rendering whole bodies costs; only when debug lines are written at all.
    if (!LogLevel.isGreaterThan(fiber.getRef(References.MinimumLogLevel), "Debug")) {
      logger.debug(`${capitalize(title)} is in progress: ${render(cause.body)}`);
      if (cause.diff.length > 0 && cause.old !== undefined && cause.new !== undefined) {
        logger.debug(`${capitalize(title)} diff: ${render(cause.diff)}`);
      }
    }

    if (run.handlers.length === 0) return Effect.succeed({ ...nothing, state, done: false, skipped: true });

    const executed = executeHandlersOnce({
      lifecycle,
      settings,
      handlers: run.handlers,
      cause,
      state,
      extraContext: Subhandling.context(),
    });
    // The handlers' outcomes are taken in the same fiber (a continuation runs on the fiber
    // that ran its effect): no second access to it.
    return Effect.flatMap(executed, (outcomes): Effect.Effect<ChangingResult, State.StateError> => {
      const now = nowMicros(fiber);
      const stepped = State.withOutcomes(state, outcomes, now);
      if (Result.isFailure(stepped)) return Effect.fail(stepped.failure);
      const next = stepped.success;
      const done = State.isDone(next);
      State.store(next, { body: cause.body, patch: cause.patch, storage, thenPurged: done });
      Outcome.deliverResults(outcomes, cause.patch);

      if (done) {
        const counters = State.counts(next);
        logger.info(
          `${capitalize(title)} is processed: ${counters.success} succeeded; ${counters.failure} failed.`,
        );
        State.purge(next, { body: cause.body, patch: cause.patch, storage, handlers: owned });
      }
      return Effect.succeed({
        state: next,
        outcomes,
        delays: State.delays(next, now),
        done,
        skipped: false,
      });
    });
  });

/** One cycle of a watching cause (`on.event`). */
export interface WatchingRun {
  readonly cause: HandlerCause.WatchingCause;
  /** The handlers matching the event (`Matching.watchingHandlers`). */
  readonly handlers: ReadonlyArray<WatchingHandler>;
  readonly settings?: OperatorSettings | undefined;
}

/**
 * Runs the `on.event` handlers of an event: all at once, errors ignored by default, never
 * retried, no progress kept; results go into the patch (docs/behaviour/processing.md#cause-order).
 *
 * @example
 * yield* Execution.runWatching({ cause, handlers: Matching.watchingHandlers(registry.watchingFor(resource), cause) })
 */
export const runWatching = (run: WatchingRun): Effect.Effect<ReadonlyMap<string, Outcome.Outcome>> =>
  Effect.withFiber((fiber) => {
    const settings = run.settings ?? fiber.getRef(OperatorSettings);
    const state = State.withHandlers(State.empty(), run.handlers, nowMicros(fiber));
    const executed = executeHandlersOnce({
      lifecycle: Lifecycles.all_at_once,
      settings,
      handlers: run.handlers,
      cause: run.cause,
      state,
    });
    return Effect.map(executed, (outcomes) => {
      Outcome.deliverResults(outcomes, run.cause.patch);
      return outcomes;
    });
  });

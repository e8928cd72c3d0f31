/**
 * Executing handlers once (Kopf's `execute_handlers_once` / `execute_handler_once`, docs/behaviour/processing.md#lifecycles and
 * docs/behaviour/processing.md#errors-and-retries): the lifecycle picks among the awakened handlers, the picked ones run one after
 * another, and each attempt becomes an `Outcome` judged by `ErrorModes`, with Kopf's log lines.
 * This never fails with a handler's error: handler failures are outcomes. Interruption of an
 * attempt is logged ("is cancelled. Will escalate.") and propagated.
 *
 * Used for changing handlers (with the sub-handling context), `on.event` handlers and
 * activities alike; the context object is built per kind of cause (`HandlerCause`). One
 * attempt of one handler is `internal/attempt.ts`.
 */
import type {
  ActivityHandler,
  ChangingHandler,
  HandlerCause,
  HandlerId,
  IndexingHandler,
  Lifecycle,
  SpawningHandler,
  WatchingHandler,
  WebhookHandler,
} from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { HandlerState, type Outcome, type State } from "@kopf/storage";
import { type IsoTime, Resource } from "@kopf/structs";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Random from "effect/Random";
import type * as Metrics from "../Metrics.ts";
import * as Tracing from "../Tracing.ts";
import type { HandlerFailure } from "./Invocation.ts";
import * as Attempt from "./internal/attempt.ts";
import { nowMicros } from "./internal/fiberClock.ts";

type Outcome_ = Outcome.Outcome;

/** Any cause a handler can be executed for. */
export type ExecutableCause =
  | HandlerCause.ChangingCause
  | HandlerCause.WatchingCause
  | HandlerCause.IndexingCause
  | HandlerCause.SpawningCause
  | HandlerCause.WebhookCause
  | HandlerCause.ActivityCause;

/** Any handler that can be executed. */
export type ExecutableHandler =
  | ChangingHandler
  | WatchingHandler
  | IndexingHandler
  | SpawningHandler
  | WebhookHandler
  | ActivityHandler;

/** What a sub-handling context adds to one invocation (see `Subhandling`). */
export interface Subcontext {
  /** Extra context fields (e.g. `subregistry`), overridden by indices as every field is. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Wraps the invocation: binds it ambiently and runs what must follow it (sub-handlers). */
  readonly around: <A>(invocation: Effect.Effect<A, HandlerFailure>) => Effect.Effect<A, unknown>;
  /** The ids of all sub-handlers used so far by this invocation (any depth). */
  readonly subrefs: () => ReadonlyArray<string>;
}

/**
 * Builds the sub-handling context of one invocation (Kopf's `extra_context`), as plain code in
 * the invoking fiber: `services` are that fiber's.
 */
export type ExtraContext = (
  args: {
    readonly handler: ExecutableHandler;
    readonly cause: ExecutableCause;
    readonly settings: OperatorSettings;
    readonly lifecycle: Lifecycle;
  },
  services: Context.Context<never>,
) => Subcontext | undefined;

/** One handler's attempt. */
export interface HandlerAttempt {
  readonly handler: ExecutableHandler;
  readonly cause: ExecutableCause;
  /** The handler's current state (retries, started). */
  readonly state: HandlerState.HandlerState;
  readonly settings: OperatorSettings;
  /** The lifecycle sub-handlers inherit. */
  readonly lifecycle: Lifecycle;
  readonly extraContext?: ExtraContext | undefined;
  /** Fields added to the context (e.g. daemons' `stopped`); indices still override them. */
  readonly fields?: Readonly<Record<string, unknown>> | undefined;
}

/** The bounded labels of a handler's metrics: its resource, id and the kind of cause. */
const labelsOf = (handler: ExecutableHandler, cause: ExecutableCause): Metrics.HandlerLabels => {
  const resource = cause._tag === "ActivityCause" ? "" : Resource.toString(cause.resource);
  const reason =
    cause._tag === "ChangingCause"
      ? cause.reason
      : cause._tag === "WatchingCause"
        ? "event"
        : cause._tag === "IndexingCause"
          ? "index"
          : cause._tag === "SpawningCause"
            ? handler._tag === "TimerHandler"
              ? "timer"
              : "daemon"
            : cause._tag === "WebhookCause"
              ? "webhook"
              : cause.activity;
  return { resource, handler: handler.id, reason };
};

/**
 * Executes one handler once and judges the attempt (docs/behaviour/processing.md#errors-and-retries). Completes with the outcome;
 * fails only by interruption.
 *
 * @example
 * const outcome = yield* Handling.executeHandlerOnce({ handler, cause, state, settings, lifecycle: Lifecycles.asap })
 */
export const executeHandlerOnce = (attempt: HandlerAttempt): Effect.Effect<Outcome_> => {
  const labels = labelsOf(attempt.handler, attempt.cause);
  const span = {
    handler: labels.handler,
    reason: labels.reason,
    retry: attempt.state.retries,
    // Daemons and timers run for long: each invocation is a trace of its own.
    root: attempt.cause._tag === "SpawningCause",
  };
  return Tracing.handler(span, Attempt.perform(attempt, labels));
};

/** A cycle's execution of handlers: what to run, with which lifecycle and state. */
export interface HandlersRun {
  readonly lifecycle: Lifecycle;
  readonly settings: OperatorSettings;
  /** The candidates in registration order; only awakened ones known to `state` are offered. */
  readonly handlers: ReadonlyArray<ExecutableHandler>;
  readonly cause: ExecutableCause;
  readonly state: State.State;
  readonly extraContext?: ExtraContext | undefined;
  readonly fields?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The handlers to run now (pure): the awakened candidates (known to the state, neither finished
 * nor sleeping) offered to the lifecycle, and of its choice only those offered, once each — so
 * a handler whose progress says it is done never runs again, whatever a custom lifecycle returns.
 *
 * @example
 * const chosen = Handling.selectHandlers({ handlers, state, now, lifecycle, random: () => 0.5 })
 */
export const selectHandlers = <H extends { readonly id: HandlerId.HandlerId }>(input: {
  readonly handlers: ReadonlyArray<H>;
  readonly state: State.State;
  readonly now: IsoTime.Micros;
  readonly lifecycle: Lifecycle;
  readonly random: () => number;
}): ReadonlyArray<H> => {
  const { state, now } = input;
  const todo = input.handlers.filter((h) => {
    const handlerState = state.handlers.get(h.id);
    return handlerState !== undefined && HandlerState.isAwakened(handlerState, now);
  });
  const offered = new Set(todo.map((h) => h.id));
  const chosen = input.lifecycle(todo, {
    retries: (id) => state.handlers.get(id)?.retries ?? 0,
    random: input.random,
  });
  const seen = new Set<string>();
  return chosen.filter((h) => offered.has(h.id) && !seen.has(h.id) && seen.add(h.id));
};

/**
 * Offers the awakened handlers (neither finished nor sleeping) to the lifecycle and executes
 * its plan sequentially, once each (docs/behaviour/processing.md#lifecycles). Completes with the outcomes by handler id.
 *
 * @example
 * const outcomes = yield* Handling.executeHandlersOnce({ lifecycle, settings, handlers, cause, state })
 * const next = State.withOutcomes(state, outcomes, now)
 */
export const executeHandlersOnce = (run: HandlersRun): Effect.Effect<ReadonlyMap<string, Outcome_>> =>
  Effect.withFiber((fiber) => {
    const random = fiber.getRef(Random.Random);
    const plan = selectHandlers({
      handlers: run.handlers,
      state: run.state,
      now: nowMicros(fiber),
      lifecycle: run.lifecycle,
      random: () => random.nextDoubleUnsafe(),
    });
    const outcomes = new Map<string, Outcome_>();
    // One after another: each handler's attempt, then the next one's.
    const from = (index: number): Effect.Effect<ReadonlyMap<string, Outcome_>> => {
      for (let i = index; i < plan.length; i++) {
        const handler = plan[i]!;
        const state = run.state.handlers.get(handler.id);
        if (state === undefined) continue;
        const attempt = executeHandlerOnce({
          handler,
          cause: run.cause,
          state,
          settings: run.settings,
          lifecycle: run.lifecycle,
          extraContext: run.extraContext,
          fields: run.fields,
        });
        return Effect.flatMap(attempt, (outcome) => {
          outcomes.set(handler.id, outcome);
          return from(i + 1);
        });
      }
      return Effect.succeed(outcomes);
    };
    return from(0);
  });

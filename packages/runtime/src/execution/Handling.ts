/**
 * Executing handlers once (Kopf's `execute_handlers_once` / `execute_handler_once`, docs/behaviour/processing.md#lifecycles and
 * docs/behaviour/processing.md#errors-and-retries): the lifecycle picks among the awakened handlers, the picked ones run one after
 * another, and each attempt becomes an `Outcome` judged by `ErrorModes`, with Kopf's log lines.
 * This never fails with a handler's error: handler failures are outcomes. Interruption of an
 * attempt is logged ("is cancelled. Will escalate.") and propagated.
 *
 * Used for changing handlers (with the sub-handling context), `on.event` handlers and
 * activities alike; the context object is built per kind of cause (`HandlerCause`).
 */
import {
  type ActivityHandler,
  type AnyHandler,
  type ChangingHandler,
  Handler,
  HandlerCause,
  type HandlerId,
  type IndexingHandler,
  type Lifecycle,
  type Logger,
  type SpawningHandler,
  type WatchingHandler,
  type WebhookHandler,
} from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { HandlerState, type Outcome, type State } from "@kopf/storage";

type Outcome_ = Outcome.Outcome;

import { IsoTime, Resource } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as Random from "effect/Random";
import * as Logging from "../Logging.ts";
import * as Metrics from "../Metrics.ts";
import * as Posting from "../Posting.ts";
import * as Tracing from "../Tracing.ts";
import * as ErrorModes from "./ErrorModes.ts";
import { HandlerFailure, invoke } from "./Invocation.ts";
import { nowMicros, nowMillis } from "./internal/fiberClock.ts";

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

/** Builds the sub-handling context of one invocation (Kopf's `extra_context`). */
export type ExtraContext = (args: {
  readonly handler: ExecutableHandler;
  readonly cause: ExecutableCause;
  readonly settings: OperatorSettings;
  readonly lifecycle: Lifecycle;
}) => Effect.Effect<Subcontext | undefined>;

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

const loggerOf = (cause: ExecutableCause): Logger => cause.logger;

const emit = (logger: Logger, log: ErrorModes.LogLine, error: unknown): void => {
  if (log.level === "debug") logger.debug(log.message);
  else if (log.level === "info") logger.info(log.message);
  else if (log.level === "warning") logger.warning(log.message);
  else if (log.traceback) logger.exception(log.message, error);
  else logger.error(log.message);
};

const adjusted = (handler: ExecutableHandler, cause: ExecutableCause): ExecutableCause =>
  cause._tag === "ChangingCause" && handler._tag === "ChangingHandler"
    ? HandlerCause.adjustCause(handler, cause)
    : cause;

const contextOf = (cause: ExecutableCause, invocation: Readonly<Record<string, unknown>>): unknown => {
  const fields = invocation as unknown as HandlerCause.ChangingInvocation;
  switch (cause._tag) {
    case "ActivityCause":
      return HandlerCause.activityContext(cause, fields);
    case "ChangingCause":
      return HandlerCause.handlerContext(cause, fields);
    case "WatchingCause":
      return HandlerCause.handlerContext(cause, fields);
    case "IndexingCause":
      return HandlerCause.handlerContext(cause, fields);
    case "SpawningCause":
      return HandlerCause.handlerContext(cause, fields as unknown as HandlerCause.SpawningInvocation);
    case "WebhookCause":
      return HandlerCause.handlerContext(cause, fields);
  }
};

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
 * Posts the Warning event of a handler that failed for good on its object (changing handlers,
 * daemons and timers): unless posting is off, or the failure's own log line is posted already
 * (`posting.loggers` with `posting.level` at `Error` or below).
 */
const warnOfFailure = (
  fiber: Fiber.Fiber<unknown, unknown>,
  cause: ExecutableCause,
  settings: OperatorSettings,
  end: ErrorModes.End,
  message: string,
): void => {
  if (cause._tag !== "ChangingCause" && cause._tag !== "SpawningCause") return;
  const event = ErrorModes.failureEvent(end, message);
  if (event === undefined) return;
  const { posting } = settings;
  if (posting.loggers && Logging.levelNumber(posting.level) <= 40) return;
  fiber.getRef(Posting.CurrentEvents)?.event(cause.body, event);
};

const unwrap = (failure: unknown): unknown => (failure instanceof HandlerFailure ? failure.error : failure);

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
  return Tracing.handler(span, executeTraced(attempt, labels));
};

/**
 * One attempt, performed as plain code wherever no effect is needed: the judgement, the log
 * lines, the span's outcome and the metrics are synchronous steps around the handler's call.
 */
const executeTraced = (attempt: HandlerAttempt, labels: Metrics.HandlerLabels): Effect.Effect<Outcome_> =>
  Effect.withFiber((fiber) => {
    const { handler, state, settings, lifecycle } = attempt;
    const logger = loggerOf(attempt.cause);
    const title = Handler.describe(handler as AnyHandler);
    const runtime = HandlerState.runtime(state, nowMicros(fiber));
    const judged: ErrorModes.Attempt = {
      title,
      retries: state.retries,
      runtime,
      timeout: handler.timeout,
      retryLimit: handler.retries,
      backoff: handler.backoff ?? settings.execution.defaultBackoff,
      errors: Handler.effectiveErrors(handler as AnyHandler),
    };

    logger.debug(`${title} is invoked.`);
    const limit = ErrorModes.precheck(judged);
    if (limit !== undefined) {
      const verdict = ErrorModes.failed(judged, limit);
      const end = ErrorModes.endOf(verdict.outcome, { error: limit });
      return Effect.succeed(conclude(fiber, attempt, labels, verdict, limit, end, undefined));
    }

    const cause = adjusted(handler, attempt.cause);
    return attempt.extraContext === undefined
      ? call(attempt, labels, judged, cause, undefined)
      : Effect.flatMap(attempt.extraContext({ handler, cause, settings, lifecycle }), (sub) =>
          call(attempt, labels, judged, cause, sub),
        );
  });

/** Calls the handler (inside its sub-handling context, if any) and concludes the attempt. */
const call = (
  attempt: HandlerAttempt,
  labels: Metrics.HandlerLabels,
  judged: ErrorModes.Attempt,
  cause: ExecutableCause,
  sub: Subcontext | undefined,
): Effect.Effect<Outcome_> =>
  Effect.withFiber((fiber) => {
    const { handler, state } = attempt;
    const logger = loggerOf(attempt.cause);
    const context = contextOf(cause, {
      ...attempt.fields,
      ...sub?.fields,
      param: handler.param,
      retry: state.retries,
      started: new Date(IsoTime.toMillis(state.started)),
      runtime: judged.runtime / 1000,
    });
    const invocation = invoke(handler.fn as (ctx: unknown) => unknown, context);
    Metrics.handlerCalledNow(fiber, labels, state.retries);
    const calledAt = nowMillis(fiber);
    return (sub === undefined ? invocation : sub.around(invocation)).pipe(
      // Whatever else went wrong around the call (e.g. a custom storage throwing while the
      // sub-handlers are stored) is the attempt's failure too, as in Kopf; interruption is not.
      Effect.matchCauseEffect({
        onSuccess: (value) => Effect.succeed({ ok: true as const, value }),
        onFailure: (failure) =>
          Cause.hasInterruptsOnly(failure)
            ? Effect.failCause(failure as Cause.Cause<never>) // interruptions only: nothing typed
            : Effect.succeed({ ok: false as const, error: unwrap(Cause.squash(failure)) }),
      }),
      Effect.onInterrupt(() =>
        Effect.sync(() => logger.warning(`${judged.title} is cancelled. Will escalate.`)),
      ),
      Effect.flatMap((result) =>
        Effect.withFiberSucceed((fiber) => {
          const subrefs = sub?.subrefs() ?? [];
          const verdict = result.ok
            ? ErrorModes.succeeded(judged, result.value, subrefs)
            : ErrorModes.failed(judged, result.error, subrefs);
          const error = result.ok ? undefined : result.error;
          const end = ErrorModes.endOf(verdict.outcome, result.ok ? undefined : { error: result.error });
          const seconds = (nowMillis(fiber) - calledAt) / 1000;
          return conclude(fiber, attempt, labels, verdict, error, end, seconds);
        }),
      ),
    );
  });

/** The end of an attempt: its log line, its span's outcome, its metrics and its warning event. */
const conclude = (
  fiber: Fiber.Fiber<unknown, unknown>,
  attempt: HandlerAttempt,
  labels: Metrics.HandlerLabels,
  verdict: ErrorModes.Verdict,
  error: unknown,
  end: ErrorModes.End,
  seconds: number | undefined,
): Outcome_ => {
  emit(loggerOf(attempt.cause), verdict.log, error);
  Tracing.endedNow(fiber, end);
  Metrics.handlerEndedNow(fiber, labels, end, seconds);
  warnOfFailure(fiber, attempt.cause, attempt.settings, end, verdict.log.message);
  return verdict.outcome;
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

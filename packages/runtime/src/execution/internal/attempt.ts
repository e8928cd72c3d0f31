/**
 * One attempt of one handler, as the execution engine performs it (see `Handling`): the
 * judgement before the call (the strict limits), the handler's context object, the call inside
 * its sub-handling context, and the end — its log line, its span's outcome, its metrics and the
 * warning event of a failure for good. Everything but the call and its sub-handlers is plain
 * code in the attempt's fiber.
 */
import { type AnyHandler, Handler, HandlerCause, type Logger } from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { HandlerState, type Outcome } from "@kopf/storage";
import { IsoTime } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Fiber from "effect/Fiber";
import * as Logging from "../../Logging.ts";
import * as Metrics from "../../Metrics.ts";
import * as Posting from "../../Posting.ts";
import * as Tracing from "../../Tracing.ts";
import * as ErrorModes from "../ErrorModes.ts";
import type { ExecutableCause, ExecutableHandler, HandlerAttempt, Subcontext } from "../Handling.ts";
import { HandlerFailure, invoke } from "../Invocation.ts";
import { nowMicros, nowMillis } from "./fiberClock.ts";

type Outcome_ = Outcome.Outcome;

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
 * One attempt, performed as plain code wherever no effect is needed: the judgement, the log
 * lines, the span's outcome and the metrics are synchronous steps around the handler's call.
 */
export const perform = (attempt: HandlerAttempt, labels: Metrics.HandlerLabels): Effect.Effect<Outcome_> =>
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
    const sub = attempt.extraContext?.({ handler, cause, settings, lifecycle }, fiber.context);
    return call(fiber, attempt, labels, judged, cause, sub);
  });

/** Calls the handler (inside its sub-handling context, if any) and concludes the attempt. */
const call = (
  fiber: Fiber.Fiber<unknown, unknown>,
  attempt: HandlerAttempt,
  labels: Metrics.HandlerLabels,
  judged: ErrorModes.Attempt,
  cause: ExecutableCause,
  sub: Subcontext | undefined,
): Effect.Effect<Outcome_> => {
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
  // The attempt's end, concluded where the call's end is matched (the same fiber: a
  // continuation runs on the fiber that ran its effect).
  const ended = (result: { ok: true; value: unknown } | { ok: false; error: unknown }): Outcome_ => {
    const subrefs = sub?.subrefs() ?? [];
    const verdict = result.ok
      ? ErrorModes.succeeded(judged, result.value, subrefs)
      : ErrorModes.failed(judged, result.error, subrefs);
    const error = result.ok ? undefined : result.error;
    const end = ErrorModes.endOf(verdict.outcome, result.ok ? undefined : { error: result.error });
    const seconds = (nowMillis(fiber) - calledAt) / 1000;
    return conclude(fiber, attempt, labels, verdict, error, end, seconds);
  };
  const judging = (sub === undefined ? invocation : sub.around(invocation)).pipe(
    // Whatever else went wrong around the call (e.g. a custom storage throwing while the
    // sub-handlers are stored) is the attempt's failure too, as in Kopf; interruption is not.
    Effect.matchCauseEffect({
      onSuccess: (value) => Effect.succeed(ended({ ok: true, value })),
      onFailure: (failure) =>
        Cause.hasInterruptsOnly(failure)
          ? Effect.failCause(failure as Cause.Cause<never>) // interruptions only: nothing typed
          : Effect.succeed(ended({ ok: false, error: unwrap(Cause.squash(failure)) })),
    }),
  );
  // An interrupted attempt says so (the finalizer has no effect of its own for the others).
  return Effect.onExitPrimitive(judging, (exit) => {
    if (Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause))
      logger.warning(`${judged.title} is cancelled. Will escalate.`);
    return undefined;
  });
};

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

/**
 * The loops of one daemon or timer for one object (Kopf's `_runner`, `_daemon`, `_timer`, spec
 * docs/behaviour/daemons-timers.md#common-rules, docs/behaviour/daemons-timers.md#daemons, docs/behaviour/daemons-timers.md#timers): the initial delay, then invocations through the runtime's execution engine (errors,
 * retries, backoff and timeouts as for any handler; default errors mode temporary), the results
 * into `status.<id>` and the handler's own patch applied after every invocation (fns rejected
 * with 422 are carried to the next one), and sleeps that the stop flag interrupts. All waits run
 * on `Clock`.
 *
 * The loop ends when the handler finishes (a daemon returning or failing permanently; a one-shot
 * timer; a permanently failed timer — see `timing.ts`) or when the stop flag is raised.
 */
import type { SpawningCause } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import { Handler, HandlerCause, Lifecycles, type SpawningHandler, type TimerHandler } from "@kopf/registry";
import { Handling, PatchApplier } from "@kopf/runtime";
import { OperatorSettings } from "@kopf/settings";
import { HandlerState, Outcome } from "@kopf/storage";
import { IsoTime, Patch } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type { LiveBody } from "./LiveBody.ts";
import type { Stopper } from "./Stopper.ts";
import * as Timing from "./timing.ts";

/** Everything one runner needs. */
export interface RunnerInput {
  readonly handler: SpawningHandler;
  /** The spawning cause of the event that spawned the runner (logger, memo, indices, resource). */
  readonly cause: SpawningCause.SpawningCause;
  readonly live: LiveBody;
  readonly stopper: Stopper;
  /** Clock time (milliseconds) of the object's last essential change (idle timers). */
  readonly lastChange: () => number;
}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => ms / 1000);

/** Sleeps unless stopped meanwhile; `true` when stopped. */
const sleep = (input: RunnerInput, seconds: number): Effect.Effect<boolean> =>
  seconds > 0 ? input.stopper.await(seconds) : Effect.succeed(input.stopper.isSet());

const initialDelay = (input: RunnerInput): Effect.Effect<number> => {
  const delay = input.handler.initialDelay;
  if (delay === undefined) return Effect.succeed(0);
  if (typeof delay === "number") return Effect.succeed(delay);
  const cause = { ...input.cause, body: input.live.current() };
  return Effect.try({
    try: () => Number(delay(HandlerCause.filterContext(cause) as never)) || 0,
    catch: (error) => error,
  }).pipe(
    Effect.catch((error) =>
      Effect.as(
        Effect.sync(() =>
          input.cause.logger.exception(
            `${Handler.describe(input.handler)} failed to compute its initial delay; starting at once.`,
            error,
          ),
        ),
        0,
      ),
    ),
  );
};

/** One invocation with its own patch, applied at once; returns the outcome. */
const invokeOnce = (
  input: RunnerInput,
  state: HandlerState.HandlerState,
  carried: { fns: ReadonlyArray<Patch.PatchFn> },
): Effect.Effect<Outcome.Outcome, never, KubeApi> =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const body = input.live.current();
    const patch = new Patch.Patch(body, { fns: carried.fns });
    const cause: SpawningCause.SpawningCause = { ...input.cause, body: input.live.fields.body, patch };
    const outcome = yield* Handling.executeHandlerOnce({
      handler: input.handler,
      cause,
      state,
      settings,
      lifecycle: Lifecycles.all_at_once,
      fields: { ...input.live.fields, stopped: input.stopper.signal },
    });
    Outcome.deliverResults(new Map([[input.handler.id, outcome]]), patch);
    carried.fns = [];
    if (!patch.isEmpty()) {
      const applied = yield* PatchApplier.apply({
        resource: input.cause.resource,
        body: input.live.current(),
        patch,
      }).pipe(
        Effect.catch((error) =>
          Effect.as(
            Effect.sync(() =>
              input.cause.logger.error(
                `${Handler.describe(input.handler)} could not patch the object: ${error.message}`,
              ),
            ),
            undefined,
          ),
        ),
      );
      if (applied?._tag === "Invalid")
        input.cause.logger.error(
          `${Handler.describe(input.handler)} could not patch the object: ${applied.error.message}`,
        );
      carried.fns = applied?._tag === "Conflict" ? applied.pending.fns : [];
    }
    return outcome;
  });

const fresh = Effect.map(IsoTime.now, (now) => HandlerState.fromScratch(now));

const advance = (state: HandlerState.HandlerState, outcome: Outcome.Outcome) =>
  Effect.map(IsoTime.now, (now) => HandlerState.withOutcome(state, outcome, now));

/**
 * The daemon loop: invoke until it finishes or is stopped; a temporary failure sleeps its delay.
 *
 * @example
 * ```ts
 * yield* Runners.daemon({ handler, cause, live, stopper, lastChange })
 * ```
 */
export const daemon = (input: RunnerInput): Effect.Effect<void, never, KubeApi> =>
  Effect.gen(function* () {
    if (yield* sleep(input, yield* initialDelay(input))) return;
    let state = yield* fresh;
    const carried = { fns: [] as ReadonlyArray<Patch.PatchFn> };
    while (!input.stopper.isSet() && !HandlerState.isFinished(state)) {
      const outcome = yield* invokeOnce(input, state, carried);
      state = yield* advance(state, outcome);
      if (!outcome.final && (yield* sleep(input, outcome.delay ?? 0))) return;
    }
  });

/**
 * The timer loop (docs/behaviour/daemons-timers.md#timers): idle waits, interval (sharp or from the end of the call), retries
 * on errors with their delays, a fresh retry count each round.
 *
 * @example
 * ```ts
 * yield* Runners.timer({ handler: timerHandler, cause, live, stopper, lastChange })
 * ```
 */
export const timer = (
  input: RunnerInput & { readonly handler: TimerHandler },
): Effect.Effect<void, never, KubeApi> =>
  Effect.gen(function* () {
    const { handler, stopper } = input;
    const schedule: Timing.TimerSchedule = {
      interval: handler.interval,
      sharp: handler.sharp === true,
      idle: handler.idle,
    };
    if (yield* sleep(input, yield* initialDelay(input))) return;
    let state = yield* fresh;
    const carried = { fns: [] as ReadonlyArray<Patch.PatchFn> };
    while (!stopper.isSet()) {
      if (HandlerState.isFinished(state)) state = yield* fresh;
      if (handler.idle !== undefined && state.retries === 0) {
        for (;;) {
          const left = Timing.idleLeft({
            idle: handler.idle,
            lastChange: input.lastChange() / 1000,
            now: yield* nowSeconds,
          });
          if (left <= 0) break;
          if (yield* sleep(input, left)) return;
        }
      }
      const started = yield* nowSeconds;
      const outcome = yield* invokeOnce(input, state, carried);
      state = yield* advance(state, outcome);
      const next = Timing.afterRun(
        {
          final: outcome.final,
          failed: outcome.error !== undefined && outcome.error !== null,
          delay: outcome.delay ?? undefined,
          started,
          now: yield* nowSeconds,
        },
        schedule,
      );
      switch (next._tag) {
        case "Retry":
        case "Sleep":
          if (yield* sleep(input, next.delay)) return;
          break;
        case "AwaitChange":
          while (input.lastChange() / 1000 <= started) {
            if (yield* sleep(input, handler.idle ?? 0)) return;
          }
          break;
        case "Stop":
          if (next.failed) {
            yield* Effect.sync(() =>
              input.cause.logger.warning(
                `${Handler.describe(handler)} has failed permanently and is stopped for this object until the operator restarts.`,
              ),
            );
          }
          return;
      }
    }
  });

/**
 * How the daemons-and-timers engine (`Daemons.ts`) stops a runner: the multi-cycle stop, one step
 * per processing cycle (signal, cancel after the handler's backoff, abandon after its timeout, or
 * poll), decided by the pure `stopping.ts` and performed here, and the single-shot stop of
 * operator exit and of objects already gone, which waits through the same stages at once.
 */
import type { DaemonStoppingReason, SpawningHandler } from "@kopf/registry";
import { Handler } from "@kopf/registry";
import { OperatorSettings } from "@kopf/settings";
import * as Clock from "effect/Clock";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import type * as Stopper from "./Stopper.ts";
import * as Stopping from "./stopping.ts";

/** A running daemon or timer of one object, and how far its stopping has gone. */
export interface Runner {
  readonly handler: SpawningHandler;
  readonly stopper: Stopper.Stopper;
  readonly exited: Deferred.Deferred<void>;
  fiber: Fiber.Fiber<void> | undefined;
  abandoned: boolean;
}

const cancellationOf = (handler: SpawningHandler, defaultPolling: number): Stopping.Cancellation =>
  handler._tag === "DaemonHandler"
    ? {
        backoff: handler.cancellationBackoff,
        timeout: handler.cancellationTimeout,
        polling: handler.cancellationPolling ?? defaultPolling,
      }
    : { backoff: undefined, timeout: undefined, polling: defaultPolling };

/** Gives a just-stopped runner the chance to exit at once (Kopf's `_wait_for_instant_exit`). */
const instantExit = (runner: Runner) =>
  Effect.gen(function* () {
    const { background } = yield* OperatorSettings;
    if (background.instantExitTimeout !== null) {
      yield* Effect.timeoutOption(
        Deferred.await(runner.exited),
        `${background.instantExitTimeout * 1000} millis`,
      );
    } else {
      for (let i = 0; i < (background.instantExitZeroTimeCycles ?? 0); i++) {
        if (Deferred.isDoneUnsafe(runner.exited)) return;
        yield* Effect.yieldNow;
      }
    }
  });

const interrupt = (runner: Runner) =>
  runner.fiber === undefined ? Effect.void : Effect.asVoid(Effect.forkDetach(Fiber.interrupt(runner.fiber)));

/** One cycle of the multi-cycle stopping of one runner; returns its delay, if any. */
const stopOne = (runner: Runner, reason: DaemonStoppingReason) =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const now = yield* Clock.currentTimeMillis;
    const { handler, stopper } = runner;
    const title = Handler.describe(handler);
    const age = (now - (stopper.when() ?? now)) / 1000;
    if (!stopper.has(reason)) {
      stopper.set(reason, now);
      yield* instantExit(runner);
    }
    const options = cancellationOf(handler, settings.background.cancellationPolling);
    const exited = () => Deferred.isDoneUnsafe(runner.exited) || runner.abandoned;
    const step = Stopping.step({ exited: exited(), age, options });
    switch (step._tag) {
      case "Exited":
        return undefined;
      case "Signal":
        if (!stopper.has("daemon-signalled")) {
          stopper.set("daemon-signalled", now);
          yield* Effect.logDebug(`${title} is signalled to exit gracefully.`);
          yield* instantExit(runner);
        }
        return exited() ? undefined : step.delay;
      case "Cancel":
        if (!stopper.has("daemon-cancelled")) {
          stopper.set("daemon-cancelled", now);
          yield* Effect.logDebug(`${title} is signalled to exit by force.`);
          yield* interrupt(runner);
          yield* instantExit(runner);
        }
        return exited() ? undefined : step.delay;
      case "Abandon":
        if (!stopper.has("daemon-abandoned")) {
          stopper.set("daemon-abandoned", now);
          runner.abandoned = true;
          yield* Effect.logWarning(`${title} did not exit in time. Leaving it orphaned.`);
        }
        return undefined;
      case "Poll":
        yield* Effect.logDebug(`${title} is still exiting. The next check is in ${step.delay} seconds.`);
        return step.delay;
    }
  });

/**
 * One stopping cycle of each runner at once; the delays of those still exiting.
 *
 * @example
 * ```ts
 * const delays = yield* stopAll(objectDaemons.runners.values(), "resource-deleted")
 * ```
 */
export const stopAll = (runners: Iterable<Runner>, reason: DaemonStoppingReason) =>
  Effect.map(
    Effect.forEach([...runners], (runner) => stopOne(runner, reason), { concurrency: "unbounded" }),
    (delays) => delays.filter((delay): delay is number => delay !== undefined),
  );

/**
 * The single-shot stop (docs/behaviour/daemons-timers.md#operator-exit): on operator exit, and for objects already gone from the
 * cluster (a `DELETED` event: no later cycle would continue a multi-cycle stop).
 *
 * @example
 * ```ts
 * yield* stopOnce(runner, "operator-exiting") // returns once it exited, or was abandoned
 * ```
 */
export const stopOnce = (runner: Runner, reason: DaemonStoppingReason) =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const { stopper, handler } = runner;
    const title = Handler.describe(handler);
    stopper.set(reason, yield* Clock.currentTimeMillis);
    yield* instantExit(runner);
    for (const stage of Stopping.exitPlan(cancellationOf(handler, settings.background.cancellationPolling))) {
      if (Deferred.isDoneUnsafe(runner.exited)) {
        yield* Effect.logDebug(`${title} has exited gracefully.`);
        return;
      }
      const now = yield* Clock.currentTimeMillis;
      switch (stage._tag) {
        case "Signal":
          stopper.set("daemon-signalled", now);
          yield* Effect.logDebug(`${title} is signalled to exit gracefully.`);
          yield* Effect.timeoutOption(Deferred.await(runner.exited), `${stage.wait * 1000} millis`);
          break;
        case "Cancel":
          stopper.set("daemon-cancelled", now);
          yield* Effect.logDebug(`${title} is signalled to exit by force.`);
          yield* interrupt(runner);
          yield* Effect.timeoutOption(Deferred.await(runner.exited), `${stage.wait * 1000} millis`);
          break;
        case "Abandon":
          stopper.set("daemon-abandoned", now);
          runner.abandoned = true;
          yield* Effect.logWarning(`${title} did not exit in time. Leaving it orphaned.`);
          break;
      }
    }
  });

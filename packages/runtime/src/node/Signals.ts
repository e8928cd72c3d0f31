/**
 * Running the operator as a process (Kopf's signal handling, docs/behaviour/operator.md#tasks-start-up-and-shutdown): SIGINT/SIGTERM start a
 * graceful stop ("Signal SIGTERM is received. Operator is stopping."): the operator fiber is
 * interrupted, running handlers finish within `queueing.exitTimeout`, cleanup handlers run, and
 * the exit code is 0. A second signal stops at once (exit code 1). If the graceful stop takes
 * longer than `process.ultimateExitingTimeout` seconds, the process is exited forcibly too.
 *
 * Edge code: it touches `process`. The CLI and `kopf.run()` use it; embedding applications that
 * manage their own signals interrupt the operator's fiber instead.
 */
import { OperatorSettings } from "@kopf/settings";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Operator from "../Operator.ts";

/** The signals that stop the operator. */
export const SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM"];

/** The process as {@link stopOnSignals} uses it; replaceable for tests. */
export interface ProcessPort {
  readonly on: (signal: NodeJS.Signals, listener: () => void) => void;
  readonly off: (signal: NodeJS.Signals, listener: () => void) => void;
  readonly exit: (code: number) => void;
}

/** The real process. */
export const nodeProcess: ProcessPort = {
  on: (signal, listener) => void process.on(signal, listener),
  off: (signal, listener) => void process.off(signal, listener),
  exit: (code) => process.exit(code),
};

/**
 * Runs `program` (e.g. `Operator.run(options)`) until it ends or a signal stops it; completes
 * with the exit code: 0 for a clean or signalled stop, 1 for a failure (logged). Log lines go
 * through the loggers of the context.
 *
 * @example
 * ```ts
 * const code = await Effect.runPromise(Signals.stopOnSignals(Operator.run(options)).pipe(Effect.provide(live)))
 * process.exitCode = code
 * ```
 */
export const stopOnSignals = <E, R>(
  program: Effect.Effect<void, E, R>,
  port: ProcessPort = nodeProcess,
): Effect.Effect<number, never, R> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>();
    const settings = yield* OperatorSettings;
    const runFork = Effect.runForkWith(context);
    const notice: Operator.StopNotice = { signal: undefined };
    const fiber = yield* Effect.forkChild(Effect.provideService(program, Operator.StopNotice, notice));
    let signalled = false;
    const listeners = SIGNALS.map((signal) => {
      const listener = () => {
        if (signalled) {
          runFork(Effect.logWarning(`Signal ${signal} is received again. Operator is exiting now.`));
          port.exit(1);
          return;
        }
        signalled = true;
        notice.signal = signal;
        const ultimate = settings.process.ultimateExitingTimeout;
        if (ultimate !== null) {
          const timer = setTimeout(() => port.exit(1), ultimate * 1000);
          timer.unref?.();
        }
        // One fiber logs and then stops the operator: the line is out before the stop begins
        // (two fibers forked side by side could run in either order under load).
        runFork(
          Effect.logInfo(`Signal ${signal} is received. Operator is stopping.`).pipe(
            Effect.andThen(Fiber.interrupt(fiber)),
          ),
        );
      };
      port.on(signal, listener);
      return [signal, listener] as const;
    });
    const exit = yield* Fiber.await(fiber).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          for (const [signal, listener] of listeners) port.off(signal, listener);
        }),
      ),
    );
    if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return 0;
    yield* Effect.logError("The operator has failed.", exit.cause);
    return 1;
  });

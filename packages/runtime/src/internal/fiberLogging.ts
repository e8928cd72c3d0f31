/**
 * A log line written in a fiber that is running already, as `Effect.logWithLevel` writes it from
 * inside that fiber: to the fiber's loggers, with its clock's time and its references (so its
 * log annotations). The handlers' synchronous loggers use it when they are called from the
 * fiber whose services they were made with (the framework's own lines about a handler and a
 * synchronous handler's lines), instead of running one more fiber per line.
 */
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import type * as Fiber from "effect/Fiber";
import * as Logger from "effect/Logger";
import type * as LogLevel from "effect/LogLevel";

/**
 * Writes one line in `fiber`: `parts` are the message and its arguments, of which at most one
 * may be a `Cause` (given to the loggers as the line's cause, as `Effect.log` does). Returns
 * `false`, writing nothing, for parts with more than one cause: the caller logs those through
 * `Effect.log` (which combines them).
 *
 * @example
 * ```ts
 * const fiber = Fiber.getCurrent()
 * if (fiber !== undefined) logInFiber(fiber, "Info", ["Handler 'create_fn' succeeded."])
 * ```
 */
export const logInFiber = (
  fiber: Fiber.Fiber<unknown, unknown>,
  level: LogLevel.Severity,
  parts: ReadonlyArray<unknown>,
): boolean => {
  let cause: Cause.Cause<unknown> = Cause.empty;
  let message: ReadonlyArray<unknown> = parts;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!Cause.isCause(part)) continue;
    if (message !== parts) return false;
    cause = part;
    message = [...parts.slice(0, i), ...parts.slice(i + 1)];
  }
  const loggers = fiber.getRef(Logger.CurrentLoggers);
  if (loggers.size === 0) return true;
  const date = new Date(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe());
  for (const logger of loggers) logger.log({ cause, fiber, date, logLevel: level, message });
  return true;
};

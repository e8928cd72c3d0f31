/**
 * The fiber's `Clock` read synchronously, for steps the execution engine performs as one plain
 * block inside its fiber (no effect per reading); the same clock `Clock.currentTimeNanos` reads,
 * so a `TestClock` drives it alike.
 */
import type { IsoTime } from "@kopf/structs";
import * as Clock from "effect/Clock";
import type * as Fiber from "effect/Fiber";

/**
 * The current time in microseconds, as `IsoTime.now` gives it.
 *
 * @example
 * Effect.withFiberSucceed((fiber) => nowMicros(fiber))
 */
export const nowMicros = (fiber: Fiber.Fiber<unknown, unknown>): IsoTime.Micros =>
  Number(fiber.getRef(Clock.Clock).currentTimeNanosUnsafe() / 1000n);

/**
 * The current time in milliseconds, as `Clock.currentTimeMillis` gives it.
 *
 * @example
 * Effect.withFiberSucceed((fiber) => nowMillis(fiber))
 */
export const nowMillis = (fiber: Fiber.Fiber<unknown, unknown>): number =>
  fiber.getRef(Clock.Clock).currentTimeMillisUnsafe();

/**
 * The interpreter of the adaptive cycle limit (`CycleLimit.ts`) for one set of queues: it sleeps
 * until cycles wait for a slot, then every {@link READING_INTERVAL} reads how busy the event loop
 * was and resizes the slots as `CycleLimit.next` decides, for as long as cycles wait. An operator
 * whose cycles never wait (or an idle one) is never woken by it.
 */
import * as Effect from "effect/Effect";
import * as CycleLimit from "../CycleLimit.ts";
import type * as LoopLoad from "../LoopLoad.ts";
import type * as CycleSlots from "./cycleSlots.ts";

/** How long each reading of the event loop's load covers. */
export const READING_INTERVAL = "100 millis";

/**
 * Adapts `slots` (made with the limit `most`) to the load of the event loop, forever; `observe`
 * is told every new limit (for the gauge).
 *
 * @example
 * ```ts
 * yield* Effect.forkScoped(CycleLimiting.adapt(slots, load, 32, "kopfexamples.v1.kopf.dev", () => {}))
 * ```
 */
export const adapt = (
  slots: CycleSlots.Slots,
  load: LoopLoad.Shape,
  most: number,
  name: string | undefined,
  observe: (limit: number) => void,
): Effect.Effect<never> => {
  const bounds = CycleLimit.bounds(most);
  const read = load.reader();
  // Called back from the code that queued a cycle: this fiber resumes in a task of its own, not on
  // that code's stack.
  const waited = Effect.withFiber((fiber) =>
    Effect.callback<void>((resume) => {
      slots.whenWaiting(() => fiber.currentDispatcher.scheduleTask(() => resume(Effect.void), 0));
    }),
  );
  const decide = Effect.suspend(() => {
    const before = slots.limit() ?? most;
    const after = CycleLimit.next(before, { utilization: read(), waiting: slots.waiting() > 0 }, bounds);
    if (after === before) return Effect.void;
    slots.resize(after);
    observe(after);
    return Effect.logDebug(
      `Cycles in flight${name === undefined ? "" : ` for ${name}`}: at most ${after} (was ${before}).`,
    );
  });
  const busy: Effect.Effect<void> = Effect.gen(function* () {
    yield* waited;
    read(); // the load from now on
    do {
      yield* Effect.sleep(READING_INTERVAL);
      yield* decide;
    } while (slots.waiting() > 0);
  });
  return Effect.forever(busy);
};

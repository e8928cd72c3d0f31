/**
 * The items of a received batch (a watch stream's chunk) handled in one pass: each item's own work
 * is done at once, in the fiber that runs the pass, and only an item that needs an effect (a new
 * shard watch, the end of a listing) has one run, before the next item. A chunk of events then
 * costs one step of Effect's run loop, not one or more per event.
 */
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";

/**
 * Handles `batch` in order: `handle` does an item's work at once (in `fiber`) and returns the
 * effect the item still needs, if any, which runs before the next item is handled.
 *
 * @example
 * ```ts
 * yield* Stream.runForEachArray(items, (batch) =>
 *   ItemBatches.inOrder(batch, (item, fiber) => (item._tag === "Event" ? queue(item, fiber) : listed(item))),
 * )
 * ```
 */
export const inOrder = <A>(
  batch: ReadonlyArray<A>,
  handle: (item: A, fiber: Fiber.Fiber<unknown, unknown>) => Effect.Effect<void> | undefined,
): Effect.Effect<void> => {
  const from = (start: number): Effect.Effect<void> =>
    Effect.withFiber((fiber) => {
      for (let i = start; i < batch.length; i++) {
        const effect = handle(batch[i] as A, fiber);
        if (effect !== undefined) return Effect.andThen(effect, from(i + 1));
      }
      return Effect.void;
    });
  return from(0);
};

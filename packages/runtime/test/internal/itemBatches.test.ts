// Covers the one-pass handling of a batch of items: every item handled once, in order, and the
// effect an item needs run before the next item is handled, wherever in the batch it comes.

import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as ItemBatches from "../../src/internal/itemBatches.ts";

/** Handles numbers at once and strings with an effect; returns what happened, in order. */
const handled = (batch: ReadonlyArray<number | string>) =>
  Effect.gen(function* () {
    const seen: Array<string> = [];
    yield* ItemBatches.inOrder(batch, (item) => {
      seen.push(`item ${item}`);
      return typeof item === "string" ? Effect.sync(() => void seen.push(`effect ${item}`)) : undefined;
    });
    return seen;
  });

describe("ItemBatches.inOrder", () => {
  it.effect("handles every item once, in order, each item's effect before the next item", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* handled([1, 2, "a", 3, "b", "c", 4]), [
        "item 1",
        "item 2",
        "item a",
        "effect a",
        "item 3",
        "item b",
        "effect b",
        "item c",
        "effect c",
        "item 4",
      ]);
    }),
  );

  it.effect("a batch of items with no effect, or with one at either end", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* handled([1, 2]), ["item 1", "item 2"]);
      assert.deepStrictEqual(yield* handled(["a", 1]), ["item a", "effect a", "item 1"]);
      assert.deepStrictEqual(yield* handled([1, "a"]), ["item 1", "item a", "effect a"]);
      assert.deepStrictEqual(yield* handled([]), []);
    }),
  );
});

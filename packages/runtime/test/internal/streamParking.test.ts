// Covers how a stream waits without a fiber: an idle stream parks for the idle timeout, or until
// the deadline of the version it awaits when that is later; a rung park wakes the stream, a park
// that times out ends it keeping what it awaited; a stream awaiting a newer event has the event
// put back first in line with the rest of its cycle and parks until the echo's deadline, woken
// either way.

import { assert, describe, it } from "@effect/vitest";
import type { RawEvent } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { TestClock } from "effect/testing";
import type * as IdleWaits from "../../src/internal/idleWaits.ts";
import * as ObjectStream from "../../src/internal/objectStream.ts";
import { NOT_QUICK, type QuickAnswer } from "../../src/internal/queueContract.ts";
import * as StreamBook from "../../src/internal/streamBook.ts";
import * as StreamParking from "../../src/internal/streamParking.ts";
import * as WorkerPlaces from "../../src/internal/workerPlaces.ts";

const event: RawEvent = {
  type: "MODIFIED",
  object: { metadata: { namespace: "ns1", name: "a", resourceVersion: "3" } },
};

/** Parking over idle waits that record each park for the test to end. */
const setUp = () => {
  const parks: Array<{ deadline: number; end: (rung: boolean) => void }> = [];
  const waits: IdleWaits.IdleWaits = { park: (_bell, deadline, end) => parks.push({ deadline, end }) };
  const book = StreamBook.make(WorkerPlaces.make(null));
  const woken: Array<string> = [];
  const parking = StreamParking.make(book, waits, 60, (stream) => woken.push(stream.key));
  return { parks, book, woken, parking };
};

describe("StreamParking", () => {
  it.effect("parks an idle stream for the idle timeout, or until a later awaited deadline", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1000);
      const clock = yield* Clock.Clock;
      const { parks, book, parking } = setUp();
      parking.idle(StreamBook.open(book, "ns1/a"), clock);
      const awaiting = StreamBook.open(book, "ns1/b");
      awaiting.awaited = { version: "9", deadline: 1000 + 90_000 };
      parking.idle(awaiting, clock);
      const soon = StreamBook.open(book, "ns1/c");
      soon.awaited = { version: "9", deadline: 1000 + 5_000 };
      parking.idle(soon, clock);
      assert.deepStrictEqual(
        parks.map((park) => park.deadline),
        [61_000, 91_000, 61_000],
      );
    }),
  );

  it.effect("wakes an idle stream when rung, and ends it, keeping what it awaits, when not", () =>
    Effect.gen(function* () {
      const clock = yield* Clock.Clock;
      const { parks, book, woken, parking } = setUp();
      const rung = StreamBook.open(book, "ns1/a");
      const idle = StreamBook.open(book, "ns1/b");
      idle.awaited = { version: "9", deadline: 10 };
      parking.idle(rung, clock);
      parking.idle(idle, clock);
      parks[0]?.end(true);
      parks[1]?.end(false);
      assert.deepStrictEqual(woken, ["ns1/a"]);
      assert.deepStrictEqual([...book.streams.keys()], ["ns1/a"]);
      assert.deepStrictEqual(book.overdue.get("ns1/b"), { version: "9", deadline: 10 });
    }),
  );

  it("puts an event awaiting a newer one back first with its cycle's rest, woken either way", () => {
    const { parks, book, woken, parking } = setUp();
    const stream = StreamBook.open(book, "ns1/a");
    StreamBook.enqueue(book, stream, { event, arrived: 2 });
    const resume = (): QuickAnswer => NOT_QUICK;
    parking.awaitNewer(stream, { event, arrived: 1 }, { _tag: "AwaitNewer", resume }, 4000);
    const first = stream.items[0];
    assert.isTrue(first !== undefined && first !== ObjectStream.END && first.resume === resume);
    assert.deepStrictEqual(
      stream.items.map((item) => (item === ObjectStream.END ? "end" : item.arrived)),
      [1, 2],
    );
    assert.deepStrictEqual([book.queued, stream.pending], [2, 2]);
    assert.deepStrictEqual(
      parks.map((park) => park.deadline),
      [4000],
    );
    parks[0]?.end(false);
    assert.deepStrictEqual(woken, ["ns1/a"]);
    // Not ended by the deadline: the cycle's rest runs on.
    assert.isTrue(book.streams.has("ns1/a"));
  });
});

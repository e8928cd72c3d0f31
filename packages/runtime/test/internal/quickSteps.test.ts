// Covers a stream's quick steps: events whose cycles are done at once are taken one after the
// other (the stream then continuing, awaiting the version each gave, its first slot given back
// once), until an event needs the full processing (given with what its cycle runs under, the rest
// left queued), the stream parks idle, an event awaits a newer one (put back with its cycle's
// rest, resumed next time instead of tried afresh), or the stream ends. Without a quick try every
// event goes to the full processing; the pressure flag is lowered with the last event taken.

import { assert, describe, it } from "@effect/vitest";
import type { RawEvent } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { TestClock } from "effect/testing";
import * as CycleSlots from "../../src/internal/cycleSlots.ts";
import type * as IdleWaits from "../../src/internal/idleWaits.ts";
import * as ObjectStream from "../../src/internal/objectStream.ts";
import {
  type AwaitNewer,
  NOT_QUICK,
  type Quick,
  type QuickAnswer,
} from "../../src/internal/queueContract.ts";
import * as QuickSteps from "../../src/internal/quickSteps.ts";
import * as StreamBook from "../../src/internal/streamBook.ts";
import * as StreamParking from "../../src/internal/streamParking.ts";
import * as WorkerPlaces from "../../src/internal/workerPlaces.ts";
import * as Pressure from "../../src/Pressure.ts";

const event = (version: string): RawEvent => ({
  type: "MODIFIED",
  object: { metadata: { namespace: "ns1", name: "a", resourceVersion: version } },
});

/** The quick try's answer per event version, and what it was asked (version and deadline). */
const setUp = (answers: Record<string, QuickAnswer | AwaitNewer> | undefined, limit: number | null = 1) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(1000);
    const clock = yield* Clock.Clock;
    const parks: Array<number> = [];
    const waits: IdleWaits.IdleWaits = { park: (_bell, deadline) => parks.push(deadline) };
    const book = StreamBook.make(WorkerPlaces.make(null));
    const parking = StreamParking.make(book, waits, 60, () => {});
    const slots = CycleSlots.make(limit);
    const asked: Array<[string, number | undefined]> = [];
    const quick: Quick | undefined =
      answers === undefined
        ? undefined
        : (raw, context) => {
            const version = String(raw.object.metadata?.resourceVersion);
            asked.push([version, context.consistencyTime]);
            return version in answers ? answers[version] : NOT_QUICK;
          };
    const steps = QuickSteps.make({
      book,
      parking,
      slots,
      quick,
      context: yield* Effect.context<never>(),
      resource: undefined,
      consistencyTimeout: 5,
    });
    const stream = StreamBook.open(book, "ns1/a");
    const offer = (...versions: Array<string>) => {
      for (const version of versions) StreamBook.enqueue(book, stream, { event: event(version), arrived: 1 });
    };
    const run = (ticket?: CycleSlots.Ticket) => {
      const parked = { value: false };
      const full = steps.steps(stream, clock, ticket, parked);
      return { full, parked: parked.value };
    };
    return { stream, book, slots, parks, asked, offer, run, steps, clock };
  });

const remaining = (stream: ObjectStream.ObjectStream) =>
  stream.items.map((item) =>
    item === ObjectStream.END ? "end" : item.event.object.metadata?.resourceVersion,
  );

describe("QuickSteps", () => {
  it.effect("takes the events done at once, awaiting what each gave, then parks idle", () =>
    Effect.gen(function* () {
      const { stream, book, parks, asked, offer, run } = yield* setUp({
        "1": "8",
        "8": undefined,
        "9": null,
      });
      offer("1", "8", "9");
      assert.deepStrictEqual(run(), { full: undefined, parked: true });
      // "8" was awaited after the first cycle (deadline 1000 + 5 s) and came; "9" cleared nothing more.
      assert.deepStrictEqual(asked, [
        ["1", undefined],
        ["8", undefined],
        ["9", undefined],
      ]);
      assert.deepStrictEqual(
        [stream.continuing, stream.awaited, book.queued, parks],
        [true, undefined, 0, [61_000]],
      );
      assert.isFalse(Pressure.isRaised(stream.pressure));
    }),
  );

  it.effect("passes the awaited version's deadline to later tries until it comes", () =>
    Effect.gen(function* () {
      const { stream, asked, offer, run } = yield* setUp({ "1": "8", "2": undefined });
      offer("1", "2");
      run();
      assert.deepStrictEqual(asked, [
        ["1", undefined],
        ["2", 6000],
      ]);
      assert.deepStrictEqual(stream.awaited, { version: "8", deadline: 6000 });
    }),
  );

  it.effect("gives the first event needing the full processing, the rest left queued", () =>
    Effect.gen(function* () {
      const { stream, book, offer, run } = yield* setUp({ "1": "8" });
      offer("1", "2", "3");
      const { full, parked } = run();
      assert.isFalse(parked);
      assert.deepStrictEqual(full, {
        event: event("2"),
        arrived: 1,
        consistencyTime: 6000,
        continuing: true,
      });
      assert.deepStrictEqual([remaining(stream), book.queued], [["3"], 1]);
      // More events wait: the pressure stays raised.
      assert.isTrue(Pressure.isRaised(stream.pressure));
    }),
  );

  it.effect("gives a new stream's first slot back after its first cycle done at once, only then", () =>
    Effect.gen(function* () {
      const { slots, offer, run } = yield* setUp({ "1": undefined, "2": undefined }, 1);
      let ticket: CycleSlots.Ticket | undefined;
      slots.admit((given) => {
        ticket = given;
      });
      assert.isTrue(ticket?.held);
      offer("1", "2");
      run(ticket);
      assert.isFalse(ticket?.held);
      // The slot is free again: the next object is admitted at once.
      let admitted = false;
      slots.admit(() => {
        admitted = true;
      });
      assert.isTrue(admitted);
    }),
  );

  it.effect("puts an event awaiting a newer one back and resumes its cycle next time", () =>
    Effect.gen(function* () {
      const resumed: Array<string> = [];
      const wait: AwaitNewer = {
        _tag: "AwaitNewer",
        resume: () => {
          resumed.push("2");
          return undefined;
        },
      };
      const { stream, book, parks, asked, offer, run } = yield* setUp({
        "1": "8",
        "2": wait,
        "3": undefined,
      });
      offer("1", "2");
      assert.deepStrictEqual(run(), { full: undefined, parked: true });
      assert.deepStrictEqual([remaining(stream), book.queued, parks], [["2"], 1, [6000]]);
      offer("3");
      // Resumed, not tried afresh; then "3" is tried.
      assert.deepStrictEqual(run().parked, true);
      assert.deepStrictEqual(resumed, ["2"]);
      assert.deepStrictEqual(
        asked.map(([version]) => version),
        ["1", "2", "3"],
      );
    }),
  );

  it.effect("gives an event awaiting a newer one to the full processing when nothing is awaited", () =>
    Effect.gen(function* () {
      const wait: AwaitNewer = { _tag: "AwaitNewer", resume: () => undefined };
      const { offer, run } = yield* setUp({ "1": wait });
      offer("1");
      assert.deepStrictEqual(run(), {
        full: { event: event("1"), arrived: 1, consistencyTime: undefined, continuing: false },
        parked: false,
      });
    }),
  );

  it.effect("gives every event to the full processing without a quick try, and stops at the end", () =>
    Effect.gen(function* () {
      const { stream, offer, run, steps, clock } = yield* setUp(undefined);
      offer("1");
      stream.items.push(ObjectStream.END);
      const first = run();
      assert.deepStrictEqual(first, {
        full: { event: event("1"), arrived: 1, consistencyTime: undefined, continuing: false },
        parked: false,
      });
      steps.afterCycle(stream, "4", clock);
      assert.deepStrictEqual([stream.continuing, stream.awaited], [true, { version: "4", deadline: 6000 }]);
      assert.deepStrictEqual(run(), { full: undefined, parked: false });
    }),
  );
});

// Covers the queues' book of streams: events are counted as they are queued, put back and taken
// (the end-of-stream mark not counted); a queued event rings the stream's doorbell, a put-back one
// does not; a stream opened for an object carries what its last stream left awaited, once; a
// dropped stream uncounts its events and leaves its place to the next stream waiting for one, and
// a stream no longer the book's is not dropped twice; an expired stream keeps what it awaited.
import type { RawEvent } from "@kopf/structs";
import { describe, expect, it } from "vitest";
import * as ObjectStream from "../../src/internal/objectStream.ts";
import * as StreamBook from "../../src/internal/streamBook.ts";
import * as WorkerPlaces from "../../src/internal/workerPlaces.ts";

const event = (name: string, version = "1"): RawEvent => ({
  type: "MODIFIED",
  object: { metadata: { namespace: "ns1", name, resourceVersion: version } },
});

describe("StreamBook", () => {
  it("counts the events queued, put back and taken, in every stream", () => {
    const book = StreamBook.make(WorkerPlaces.make(null));
    const a = StreamBook.open(book, "ns1/a");
    const b = StreamBook.open(book, "ns1/b");
    StreamBook.enqueue(book, a, { event: event("a"), arrived: 1 });
    StreamBook.enqueue(book, a, { event: event("a", "2"), arrived: 2 });
    StreamBook.enqueue(book, b, { event: event("b"), arrived: 3 });
    expect([book.queued, a.pending, b.pending]).toEqual([3, 2, 1]);
    const first = StreamBook.take(book, a);
    expect(first).toEqual({ event: event("a"), arrived: 1 });
    expect([book.queued, a.pending]).toEqual([2, 1]);
    if (first === undefined || first === ObjectStream.END) throw new Error("an event was queued");
    StreamBook.requeue(book, a, first);
    expect([book.queued, a.pending]).toEqual([3, 2]);
    // Put back first in line.
    expect(a.items.map((item) => (item === ObjectStream.END ? "end" : item.arrived))).toEqual([1, 2]);
    a.items.push(ObjectStream.END);
    StreamBook.take(book, a);
    StreamBook.take(book, a);
    expect(StreamBook.take(book, a)).toBe(ObjectStream.END);
    expect(StreamBook.take(book, a)).toBeUndefined();
    expect([book.queued, a.pending]).toEqual([1, 0]);
  });

  it("rings a parked stream's doorbell for an event queued, not for one put back", () => {
    const book = StreamBook.make(WorkerPlaces.make(null));
    const stream = StreamBook.open(book, "ns1/a");
    let rung = 0;
    stream.bell.ring = () => {
      rung += 1;
    };
    StreamBook.requeue(book, stream, { event: event("a"), arrived: 1 });
    expect(rung).toBe(0);
    StreamBook.enqueue(book, stream, { event: event("a"), arrived: 2 });
    expect(rung).toBe(1);
  });

  it("drops a stream once: its events uncounted, its place left to the next stream waiting", () => {
    const book = StreamBook.make(WorkerPlaces.make(1));
    const started: Array<string> = [];
    const a = StreamBook.open(book, "ns1/a");
    book.places.enter(() => started.push("a"));
    const b = StreamBook.open(book, "ns1/b");
    book.places.enter(() => started.push("b"));
    const c = StreamBook.open(book, "ns1/c");
    book.places.enter(() => started.push("c"));
    StreamBook.enqueue(book, a, { event: event("a"), arrived: 1 });
    StreamBook.enqueue(book, a, { event: event("a", "2"), arrived: 2 });
    StreamBook.enqueue(book, b, { event: event("b"), arrived: 3 });
    expect(started).toEqual(["a"]);
    StreamBook.drop(book, a);
    expect(started).toEqual(["a", "b"]);
    expect([book.queued, a.pending, book.streams.has("ns1/a")]).toEqual([1, 0, false]);
    // Dropped again (a worker and a park both ending it): no second place is left.
    StreamBook.drop(book, a);
    expect(started).toEqual(["a", "b"]);
    // A stream replaced by a newer one of its object is not the book's any more.
    const b2 = StreamBook.open(book, "ns1/b");
    StreamBook.drop(book, b);
    expect([book.streams.get("ns1/b"), started]).toEqual([b2, ["a", "b"]]);
    StreamBook.drop(book, b2);
    expect(started).toEqual(["a", "b", "c"]);
    expect(book.streams.get("ns1/c")).toBe(c);
  });

  it("carries what an expired stream awaited to its object's next stream, once", () => {
    const book = StreamBook.make(WorkerPlaces.make(null));
    const first = StreamBook.open(book, "ns1/a");
    first.awaited = { version: "7", deadline: 5000 };
    StreamBook.expire(book, first);
    expect(book.streams.has("ns1/a")).toBe(false);
    const second = StreamBook.open(book, "ns1/a");
    expect(second.awaited).toEqual({ version: "7", deadline: 5000 });
    StreamBook.drop(book, second);
    // Dropped, not expired: nothing carried on.
    expect(StreamBook.open(book, "ns1/a").awaited).toBeUndefined();
    // An expired stream that awaited nothing leaves nothing.
    const other = StreamBook.open(book, "ns1/b");
    StreamBook.expire(book, other);
    expect(book.overdue.has("ns1/b")).toBe(false);
  });
});

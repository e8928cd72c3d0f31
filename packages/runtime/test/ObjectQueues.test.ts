// Covers the per-object queues (docs/behaviour/watching.md#queues, docs/behaviour/watching.md#consistency) in virtual time: strict order per object and
// concurrency across objects, the pressure flag, idle workers exiting and restarting, the worker
// limit, the cycle limit (waits aside holding no slot; adapted to a saturated loop, and its gauge), consistency tracking of our own patches' versions, crash isolation and shutdown,
// and cycles done at once (no slot, counted, not tried while tracing).
import { assert, describe, it } from "@effect/vitest";
import type { RawEvent } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as Metric from "effect/Metric";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import * as fc from "fast-check";
import * as Metrics from "../src/Metrics.ts";
import * as ObjectQueues from "../src/ObjectQueues.ts";
import * as Pressure from "../src/Pressure.ts";

const event = (uid: string, rv: string, type: RawEvent["type"] = "MODIFIED"): RawEvent => ({
  type,
  object: { metadata: { uid, name: uid, namespace: "ns", resourceVersion: rv } },
});

const options: ObjectQueues.Options = {
  idleTimeout: 5,
  exitTimeout: 2,
  workerLimit: null,
  consistencyTimeout: 5,
};

/** A logger layer collecting the messages logged into `lines`. */
const collecting = (lines: Array<string>) =>
  Logger.layer([Logger.make((o) => lines.push((o.message as ReadonlyArray<unknown>).join(" ")))]);

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow;
});

/** The queue gauges of `resource`, as the metrics give them. */
const queueGauges = (resource: string) =>
  Effect.all([
    Metric.value(Metric.withAttributes(Metrics.objectsQueued, { resource })),
    Metric.value(Metric.withAttributes(Metrics.eventsQueued, { resource })),
  ]).pipe(Effect.map(([objects, events]) => ({ objects: objects.value, events: events.value })));

/**
 * The end both gauge tests share: one object left, its last event in process for two more
 * seconds, then idle until its stream ends.
 */
const lastEventDoneThenIdle = (gauges: ReturnType<typeof queueGauges>) =>
  Effect.gen(function* () {
    yield* TestClock.adjust("2 seconds");
    yield* settle;
    assert.deepStrictEqual(yield* gauges, { objects: 1, events: 0 });
    yield* TestClock.adjust(`${options.idleTimeout} seconds`);
    yield* settle;
    assert.deepStrictEqual(yield* gauges, { objects: 0, events: 0 });
  });

/** Offers each event in turn, letting the queues settle after each. */
const offerSettling = (queues: ObjectQueues.ObjectQueues, events: ReadonlyArray<RawEvent>) =>
  Effect.forEach(events, (e) => Effect.andThen(queues.offer(e), settle), { discard: true });

describe("ObjectQueues", () => {
  it.effect("processes one object's events in order, one at a time, objects concurrently", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      let running = 0;
      let maxRunning = 0;
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            running += 1;
            maxRunning = Math.max(maxRunning, running);
            log.push(`start ${e.object.metadata?.uid} ${e.object.metadata?.resourceVersion}`);
            yield* Effect.sleep("1 second");
            log.push(`end ${e.object.metadata?.uid} ${e.object.metadata?.resourceVersion}`);
            running -= 1;
            return undefined;
          }),
        options,
      );
      yield* queues.offer(event("a", "1"));
      yield* queues.offer(event("a", "2"));
      yield* queues.offer(event("b", "1"));
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      const a = log.filter((l) => l.includes(" a "));
      assert.deepStrictEqual(a, ["start a 1", "end a 1", "start a 2", "end a 2"]);
      assert.strictEqual(maxRunning, 2);
    }).pipe(Effect.scoped),
  );

  it.effect("raises the pressure while newer events wait; clears it before the last one", () =>
    Effect.gen(function* () {
      const seen: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, ctx) =>
          Effect.gen(function* () {
            const slept = yield* Pressure.sleep(ctx.pressure, 100);
            seen.push(`${e.object.metadata?.resourceVersion} ${slept.fully ? "slept" : "woken"}`);
            return undefined;
          }),
        options,
      );
      yield* queues.offer(event("a", "1"));
      yield* settle;
      yield* queues.offer(event("a", "2"));
      yield* settle;
      yield* TestClock.adjust("100 seconds");
      yield* settle;
      assert.deepStrictEqual(seen, ["1 woken", "2 slept"]);
    }).pipe(Effect.scoped),
  );

  it.effect("an event for an idle worker is processed with the flag lowered (a sleep is not cut short)", () =>
    Effect.gen(function* () {
      const slept: Array<boolean> = [];
      const queues = yield* ObjectQueues.make(
        (_, ctx) =>
          Effect.gen(function* () {
            slept.push((yield* Pressure.sleep(ctx.pressure, 1)).fully);
            return undefined;
          }),
        options,
      );
      yield* queues.offer(event("a", "1"));
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      yield* queues.offer(event("a", "2"));
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.deepStrictEqual(slept, [true, true]);
    }).pipe(Effect.scoped),
  );

  it.effect("an idle worker exits after idleTimeout; the next event starts a new one", () =>
    Effect.gen(function* () {
      let count = 0;
      const queues = yield* ObjectQueues.make(
        () =>
          Effect.sync(() => {
            count += 1;
            return undefined;
          }),
        options,
      );
      yield* queues.offer(event("a", "1"));
      yield* settle;
      assert.deepStrictEqual(queues.active(), ["a"]);
      yield* TestClock.adjust("4 seconds");
      yield* settle;
      assert.deepStrictEqual(queues.active(), ["a"]);
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.deepStrictEqual(queues.active(), []);
      yield* queues.offer(event("a", "2"));
      yield* settle;
      assert.strictEqual(count, 2);
      assert.deepStrictEqual(queues.active(), ["a"]);
    }).pipe(Effect.scoped),
  );

  it.effect("each event restarts the idle timeout: an earlier wait's deadline ends no worker", () =>
    Effect.gen(function* () {
      const queues = yield* ObjectQueues.make(() => Effect.succeed(undefined), options);
      yield* queues.offer(event("a", "1"));
      yield* queues.offer(event("b", "1"));
      yield* settle;
      yield* TestClock.adjust("4 seconds");
      yield* queues.offer(event("a", "2"));
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.deepStrictEqual(queues.active(), ["a"]);
      yield* TestClock.adjust("3999 millis");
      yield* settle;
      assert.deepStrictEqual(queues.active(), ["a"]);
      yield* TestClock.adjust("1 millis");
      yield* settle;
      assert.deepStrictEqual(queues.active(), []);
    }).pipe(Effect.scoped),
  );

  it.effect("a worker awaiting its patch's version outlives idleTimeout until the consistency deadline", () =>
    Effect.gen(function* () {
      const queues = yield* ObjectQueues.make(
        (e) => Effect.succeed(e.object.metadata?.resourceVersion === "1" ? "2" : undefined),
        { ...options, idleTimeout: 2, consistencyTimeout: 5 },
      );
      yield* queues.offer(event("a", "1"));
      yield* settle;
      yield* TestClock.adjust("4999 millis");
      yield* settle;
      assert.deepStrictEqual(queues.active(), ["a"]);
      yield* TestClock.adjust("1 millis");
      yield* settle;
      assert.deepStrictEqual(queues.active(), []);
    }).pipe(Effect.scoped),
  );

  it.effect("runs at most workerLimit workers at once", () =>
    Effect.gen(function* () {
      let running = 0;
      let maxRunning = 0;
      const queues = yield* ObjectQueues.make(
        () =>
          Effect.gen(function* () {
            running += 1;
            maxRunning = Math.max(maxRunning, running);
            yield* Effect.sleep("1 second");
            running -= 1;
            return undefined;
          }),
        { ...options, workerLimit: 2, idleTimeout: 0 },
      );
      for (const uid of ["a", "b", "c", "d"]) yield* queues.offer(event(uid, "1"));
      for (let i = 0; i < 4; i++) {
        yield* settle;
        yield* TestClock.adjust("1 second");
      }
      yield* settle;
      assert.strictEqual(maxRunning, 2);
    }).pipe(Effect.scoped),
  );

  it.effect("an idle worker carries on with what it awaits, and keeps its place under workerLimit", () =>
    Effect.gen(function* () {
      const seen: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, ctx) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis;
            const { uid, resourceVersion } = e.object.metadata ?? {};
            seen.push(`${uid}:${resourceVersion} at ${now} awaiting until ${ctx.consistencyTime}`);
            return uid === "a" && resourceVersion === "1" ? "5" : undefined;
          }),
        { ...options, workerLimit: 1 },
      );
      yield* queues.offer(event("a", "1"));
      yield* queues.offer(event("b", "1"));
      yield* settle;
      yield* TestClock.adjust("1 second");
      // "a" is idle: its next event sees the version its patch awaits, "b" still waits.
      yield* queues.offer(event("a", "2"));
      yield* settle;
      assert.deepStrictEqual(seen, ["a:1 at 0 awaiting until undefined", "a:2 at 1000 awaiting until 5000"]);
      assert.deepStrictEqual(queues.active(), ["a", "b"]);
      yield* TestClock.adjust("4999 millis");
      yield* settle;
      assert.strictEqual(seen.length, 2);
      // "a" ends idleTimeout after its last event; "b" takes its place.
      yield* TestClock.adjust("1 millis");
      yield* settle;
      assert.deepStrictEqual(seen.slice(2), ["b:1 at 6000 awaiting until undefined"]);
      assert.deepStrictEqual(queues.active(), ["b"]);
    }).pipe(Effect.scoped),
  );

  it.effect("runs at most cycleLimit cycles at once; the other objects' events wait, none is lost", () =>
    Effect.gen(function* () {
      let running = 0;
      let maxRunning = 0;
      const done: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            running += 1;
            maxRunning = Math.max(maxRunning, running);
            yield* Effect.sleep("1 second");
            running -= 1;
            done.push(e.object.metadata?.uid ?? "");
            return undefined;
          }),
        { ...options, cycleLimit: 3 },
      );
      const uids = Array.from({ length: 10 }, (_, i) => `o${i}`);
      for (const uid of uids) yield* queues.offer(event(uid, "1"));
      for (let i = 0; i < 5; i++) {
        yield* settle;
        yield* TestClock.adjust("1 second");
      }
      yield* settle;
      assert.strictEqual(maxRunning, 3);
      assert.deepStrictEqual([...done].sort(), [...uids].sort());
    }).pipe(Effect.scoped),
  );

  it.effect("shutdown treats the objects not started yet (beyond cycleLimit) as the others", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const done: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            const uid = e.object.metadata?.uid;
            yield* Effect.sleep(uid === "slow" ? "1 hour" : "1 second");
            done.push(`${uid}:${e.object.metadata?.resourceVersion}`);
            return undefined;
          }),
        { ...options, cycleLimit: 1, exitTimeout: 2.5, name: "kopfexamples" },
      );
      // "b" (two events), "c", "slow" and "last" wait for a slot behind "a": only "a" and "b"'s
      // first event are processed before the queues give up.
      for (const uid of ["a", "b", "c", "slow", "last"]) yield* queues.offer(event(uid, "1"));
      yield* queues.offer(event("b", "2"));
      yield* settle;
      const fiber = yield* Effect.forkChild(queues.shutdown);
      yield* settle;
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("1 second");
        yield* settle;
      }
      assert.isDefined(fiber.pollUnsafe());
      assert.deepStrictEqual(done, ["a:1", "b:1"]);
      assert.isTrue(
        lines.some((l) => l.includes("Unprocessed streams left for kopfexamples: b, c, slow, last")),
      );
      // Interrupted with the rest: none of them is processed after the shutdown.
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("1 second");
        yield* settle;
      }
      assert.deepStrictEqual(done, ["a:1", "b:1"]);
    }).pipe(Effect.scoped, Effect.provide(collecting(lines)));
  });

  it.effect("a cycle sleeping aside holds no slot: other objects are processed meanwhile, in order", () =>
    Effect.gen(function* () {
      const log: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, context) =>
          Effect.gen(function* () {
            const uid = e.object.metadata?.uid ?? "";
            const rv = e.object.metadata?.resourceVersion ?? "";
            log.push(`start ${uid} ${rv}`);
            if (uid === "sleepy") yield* ObjectQueues.aside(context, Effect.sleep("1 hour"));
            log.push(`end ${uid} ${rv}`);
            return undefined;
          }),
        { ...options, cycleLimit: 1 },
      );
      yield* queues.offer(event("sleepy", "1"));
      yield* queues.offer(event("sleepy", "2"));
      yield* settle;
      for (const uid of ["a", "b", "c"]) yield* queues.offer(event(uid, "1"));
      yield* queues.offer(event("a", "2"));
      yield* settle;
      // The one slot is free while the sleepy object sleeps: every other object is fully processed.
      assert.deepStrictEqual(log, [
        "start sleepy 1",
        "start a 1",
        "end a 1",
        "start b 1",
        "end b 1",
        "start c 1",
        "end c 1",
        "start a 2",
        "end a 2",
      ]);
      yield* TestClock.adjust("1 hour");
      yield* settle;
      yield* TestClock.adjust("1 hour");
      yield* settle;
      // Its own events stay strictly in order.
      assert.deepStrictEqual(log.slice(9), ["end sleepy 1", "start sleepy 2", "end sleepy 2"]);
    }).pipe(Effect.scoped),
  );

  // A cycle done at once (`quick`) needs no slot: with the only slot held by another object's long
  // cycle, the echo is still processed, counted as a cycle, and its answer steers the awaiting as
  // a processed one's does. While tracing, it is not tried (each cycle gets its span).
  it.effect.each([
    ["done at once, with no slot", false],
    ["not tried while tracing", true],
  ] as const)("a cycle that needs no effect: %s", ([, tracing]) =>
    Effect.gen(function* () {
      const resource = "kopfexamples.v1.kopf.dev";
      const cycles = Metric.value(Metric.withAttributes(Metrics.cycles, { resource })).pipe(
        Effect.map((state) => state.count),
      );
      const counted = yield* cycles;
      const processed: Array<string> = [];
      const quickly: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, ctx) =>
          Effect.gen(function* () {
            const uid = e.object.metadata?.uid ?? "";
            processed.push(`${uid} ${e.object.metadata?.resourceVersion}`);
            if (uid === "long") yield* Effect.sleep("1 hour");
            return ctx.consistencyTime === undefined ? undefined : null;
          }),
        { ...options, resource, cycleLimit: 1 },
        (e, ctx) => {
          const rv = e.object.metadata?.resourceVersion ?? "";
          if (e.object.metadata?.uid !== "echo" || rv === "1") return ObjectQueues.NOT_QUICK;
          quickly.push(`${rv} ${ctx.consistencyTime ?? "-"}`);
          return rv === "2" ? "5" : rv === "3" ? null : undefined;
        },
      );
      yield* offerSettling(queues, [
        event("echo", "1"),
        event("long", "1"),
        event("echo", "2"),
        event("echo", "3"),
        event("echo", "4"),
      ]);
      if (tracing) {
        assert.deepStrictEqual(quickly, []);
        assert.deepStrictEqual(processed, ["echo 1", "long 1"]);
        yield* TestClock.adjust("1 hour");
        yield* settle;
        assert.deepStrictEqual(processed, ["echo 1", "long 1", "echo 2", "echo 3", "echo 4"]);
      } else {
        // The quick cycle of version 2 has version 5 awaited (until 5,000), that of 3 nothing any more.
        assert.deepStrictEqual(quickly, ["2 -", "3 5000", "4 -"]);
        assert.deepStrictEqual(processed, ["echo 1", "long 1"]);
      }
      assert.strictEqual((yield* cycles) - counted, 5);
    }).pipe(Effect.scoped, Effect.provideService(References.TracerEnabled, tracing)),
  );

  // A cycle that would be done at once but for the wait for our own patch's echo is tried again
  // once a newer event is queued or the deadline has passed, holding no slot meanwhile, its event
  // counted as queued; past the deadline it is processed (the real cycle re-reads the object).
  it.effect("a cycle waiting only for our patch's echo is tried again after the wait, holding nothing", () =>
    Effect.gen(function* () {
      const resource = "kopfexamples.v1.kopf.dev";
      const gauges = queueGauges(resource);
      const processed: Array<string> = [];
      const quickly: Array<string> = [];
      const tried: Array<string> = [];
      const resumed: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            const uid = e.object.metadata?.uid ?? "";
            const rv = e.object.metadata?.resourceVersion ?? "";
            processed.push(`${uid} ${rv}`);
            if (uid === "long") yield* Effect.sleep("1 hour");
            // The first cycle of each awaits its patch's version: 5.
            return rv === "1" ? "5" : undefined;
          }),
        { ...options, resource, cycleLimit: 1 },
        (e, ctx, services) => {
          const uid = e.object.metadata?.uid ?? "";
          const rv = e.object.metadata?.resourceVersion ?? "";
          if (uid === "long" || rv === "1") return ObjectQueues.NOT_QUICK;
          tried.push(`${uid} ${rv}`);
          // The cycle, tried and then carried on from its wait: as in processing, the same wait
          // once more while nothing newer came and the deadline is ahead.
          const answer = (): ObjectQueues.QuickAnswer | ObjectQueues.AwaitNewer => {
            const now = Context.get(services, Clock.Clock).currentTimeMillisUnsafe();
            if (ctx.consistencyTime !== undefined && !Pressure.isRaised(ctx.pressure))
              return ctx.consistencyTime > now
                ? {
                    _tag: "AwaitNewer",
                    resume: () => {
                      resumed.push(`${uid} ${rv}`);
                      return answer();
                    },
                  }
                : ObjectQueues.NOT_QUICK;
            quickly.push(`${uid} ${rv} ${ctx.consistencyTime ?? "-"}`);
            return undefined;
          };
          return answer();
        },
      );
      yield* offerSettling(queues, [event("echo", "1"), event("echo", "2")]);
      // Version 2 is older than the awaited 5, and nothing newer is queued: it waits, counted.
      assert.deepStrictEqual(processed, ["echo 1"]);
      assert.deepStrictEqual(quickly, []);
      assert.deepStrictEqual(yield* gauges, { objects: 1, events: 1 });
      // It holds no slot: the only one goes to another object's cycle at once.
      yield* offerSettling(queues, [event("long", "1")]);
      assert.deepStrictEqual(processed, ["echo 1", "long 1"]);
      // The awaited version comes: 2 is carried on from its wait with a newer event queued (its
      // wait cut short), not tried afresh, then 5, awaited no more.
      yield* offerSettling(queues, [event("echo", "5")]);
      assert.deepStrictEqual(quickly, ["echo 2 5000", "echo 5 -"]);
      assert.deepStrictEqual(tried, ["echo 2", "echo 5"]);
      assert.deepStrictEqual(resumed, ["echo 2"]);
      assert.deepStrictEqual(yield* gauges, { objects: 2, events: 0 });
      // Nothing newer comes for "late": past the deadline, its cycle is processed (once the slot
      // is free), not done at once.
      yield* TestClock.adjust("1 hour");
      yield* settle;
      yield* offerSettling(queues, [event("late", "1"), event("late", "2")]);
      assert.deepStrictEqual(processed.slice(2), ["late 1"]);
      yield* TestClock.adjust("4 seconds");
      yield* settle;
      assert.deepStrictEqual(processed.slice(2), ["late 1"]);
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.deepStrictEqual(processed.slice(2), ["late 1", "late 2"]);
      assert.deepStrictEqual(quickly, ["echo 2 5000", "echo 5 -"]);
      // Carried on past its deadline, its wait an effect (the re-read): processed afresh.
      assert.deepStrictEqual(tried, ["echo 2", "echo 5", "late 2"]);
      assert.deepStrictEqual(resumed, ["echo 2", "late 2"]);
    }).pipe(Effect.scoped, Effect.provideService(References.TracerEnabled, false)),
  );

  it.effect("a new object's first cycle done at once gives its admission slot back", () =>
    Effect.gen(function* () {
      const processed: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            const uid = e.object.metadata?.uid ?? "";
            if (uid === "z") yield* Effect.sleep("1 second");
            processed.push(`${uid} ${e.object.metadata?.resourceVersion}`);
            return undefined;
          }),
        { ...options, cycleLimit: 1 },
        (e) =>
          e.object.metadata?.uid === "a" && e.object.metadata?.resourceVersion === "1"
            ? undefined
            : ObjectQueues.NOT_QUICK,
      );
      // "a" waits for admission behind "z" with both its events queued. It is admitted with the
      // only slot; its first cycle is done at once, and the second needs a slot: the admission's,
      // given back (else it would wait for it forever).
      yield* queues.offer(event("z", "1"));
      yield* queues.offer(event("a", "1"));
      yield* queues.offer(event("a", "2"));
      yield* settle;
      assert.deepStrictEqual(processed, []);
      yield* TestClock.adjust("1 second");
      yield* settle;
      assert.deepStrictEqual(processed, ["z 1", "a 2"]);
      yield* queues.offer(event("b", "1"));
      yield* settle;
      assert.deepStrictEqual(processed, ["z 1", "a 2", "b 1"]);
    }).pipe(Effect.scoped, Effect.provideService(References.TracerEnabled, false)),
  );

  it.effect("passes the consistency deadline until our patch's version arrives", () =>
    Effect.gen(function* () {
      const seen: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, ctx) =>
          Effect.sync(() => {
            const rv = e.object.metadata?.resourceVersion ?? "";
            seen.push(
              `${rv} ${ctx.consistencyTime === undefined ? "consistent" : `awaiting until ${ctx.consistencyTime}`}`,
            );
            return rv === "1" ? "3" : undefined;
          }),
        options,
      );
      yield* offerSettling(queues, [event("a", "1"), event("a", "2"), event("a", "3"), event("a", "4")]);
      assert.deepStrictEqual(seen, ["1 consistent", "2 awaiting until 5000", "3 consistent", "4 consistent"]);
    }).pipe(Effect.scoped),
  );

  it.effect.each([
    ["while the worker waits", 60],
    ["after the worker went idle and exited", 1],
  ] as const)(
    "a version that never arrives stays awaited past the deadline (%s), until processing says what to await",
    ([, idleTimeout]) =>
      Effect.gen(function* () {
        const seen: Array<string> = [];
        const queues = yield* ObjectQueues.make(
          (e, ctx) =>
            Effect.sync(() => {
              const rv = e.object.metadata?.resourceVersion;
              seen.push(`${rv} ${ctx.consistencyTime ?? "-"}`);
              // A re-read past the deadline found version 2 current: nothing awaited any more.
              return rv === "1" ? "9~which~never~arrives" : rv === "2" ? null : undefined;
            }),
          { ...options, idleTimeout },
        );
        yield* queues.offer(event("a", "1"));
        yield* settle;
        yield* TestClock.adjust("6 seconds");
        yield* settle;
        assert.deepStrictEqual(queues.active(), idleTimeout < 5 ? [] : ["a"]);
        yield* queues.offer(event("a", "2"));
        yield* settle;
        yield* queues.offer(event("a", "3"));
        yield* settle;
        assert.deepStrictEqual(seen, ["1 -", "2 5000", "3 -"]);
      }).pipe(Effect.scoped),
  );

  it.effect("a DELETED event ends the awaiting of a version", () =>
    Effect.gen(function* () {
      const seen: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e, ctx) =>
          Effect.sync(() => {
            seen.push(`${e.type} ${ctx.consistencyTime ?? "-"}`);
            return e.type === "ADDED" ? "9~which~never~arrives" : undefined;
          }),
        options,
      );
      yield* queues.offer(event("a", "1", "ADDED"));
      yield* settle;
      yield* queues.offer(event("a", "2", "DELETED"));
      yield* settle;
      yield* queues.offer(event("a", "3", "ADDED"));
      yield* settle;
      assert.deepStrictEqual(seen, ["ADDED -", "DELETED -", "ADDED -"]);
    }).pipe(Effect.scoped),
  );

  it.effect("a crashing processor is logged and only ends that object's worker", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      let count = 0;
      const queues = yield* ObjectQueues.make(
        (e) =>
          e.object.metadata?.uid === "bad"
            ? Effect.die(new Error("boom"))
            : Effect.sync(() => {
                count += 1;
                return undefined;
              }),
        options,
      );
      yield* queues.offer(event("bad", "1"));
      yield* queues.offer(event("good", "1"));
      yield* settle;
      yield* queues.offer(event("good", "2"));
      yield* settle;
      assert.strictEqual(count, 2);
      assert.deepStrictEqual(queues.active(), ["good"]);
      assert.isTrue(
        lines.some((l) => l.includes("Event processing has failed with an unrecoverable error for bad")),
      );
    }).pipe(Effect.scoped, Effect.provide(collecting(lines)));
  });

  it.effect("a crashing quick try is logged and ends only that object's stream, woken or not", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const processed: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.sync(() => {
            processed.push(`${e.object.metadata?.uid} ${e.object.metadata?.resourceVersion}`);
            return undefined;
          }),
        options,
        (e) => {
          const uid = e.object.metadata?.uid;
          const rv = e.object.metadata?.resourceVersion;
          // "fresh" crashes on its new stream's first event (in its worker's fiber); "woken" on
          // the event that wakes its parked stream (in the queues' wake-up task).
          if ((uid === "fresh" && rv === "1") || (uid === "woken" && rv === "2")) throw new Error("boom");
          return rv === "1" ? ObjectQueues.NOT_QUICK : undefined;
        },
      );
      yield* offerSettling(queues, [event("fresh", "1"), event("woken", "1"), event("good", "1")]);
      assert.deepStrictEqual(processed, ["woken 1", "good 1"]);
      assert.deepStrictEqual(queues.active(), ["woken", "good"]);
      yield* offerSettling(queues, [event("woken", "2"), event("good", "2")]);
      assert.deepStrictEqual(queues.active(), ["good"]);
      for (const uid of ["fresh", "woken"])
        assert.isTrue(
          lines.some((l) =>
            l.includes(`Event processing has failed with an unrecoverable error for ${uid}.`),
          ),
          uid,
        );
      // A next event starts a fresh stream for each.
      yield* offerSettling(queues, [event("fresh", "1b"), event("woken", "3")]);
      assert.deepStrictEqual(queues.active().toSorted(), ["fresh", "good", "woken"]);
    }).pipe(
      Effect.scoped,
      Effect.provide(collecting(lines)),
      Effect.provideService(References.TracerEnabled, false),
    );
  });

  it.effect("the cycle limit gauge shows the limit, lowered while the event loop is saturated", () =>
    Effect.gen(function* () {
      const resource = "kopfexamples.v1.kopf.dev";
      const gauge = Metric.value(Metric.withAttributes(Metrics.cycleLimit, { resource })).pipe(
        Effect.map((state) => state.value),
      );
      let running = 0;
      let most = 0;
      let done = 0;
      const queues = yield* ObjectQueues.make(
        () =>
          Effect.gen(function* () {
            running += 1;
            most = Math.max(most, running);
            yield* Effect.sleep("1 second");
            running -= 1;
            done += 1;
            return undefined;
          }),
        { ...options, resource, cycleLimit: 8, load: { reader: () => () => 1 } },
      );
      assert.strictEqual(yield* gauge, 8);
      for (let i = 0; i < 30; i++) yield* queues.offer(event(`o${i}`, "1"));
      yield* settle;
      assert.strictEqual(most, 8);
      // Four readings of a saturated loop: half of the configured limit, and no lower.
      for (let i = 0; i < 6; i++) {
        yield* TestClock.adjust("100 millis");
        yield* settle;
      }
      assert.strictEqual(yield* gauge, 4);
      // The 8 in flight end; from then on at most 4 cycles at once, and every object is processed.
      most = 0;
      for (let i = 0; i < 10; i++) {
        yield* TestClock.adjust("1 second");
        yield* settle;
      }
      assert.strictEqual(most, 4);
      assert.strictEqual(done, 30);
    }).pipe(Effect.scoped),
  );

  it.effect("the queue gauges count objects with a worker and events waiting, crashes included", () =>
    Effect.gen(function* () {
      const resource = "kopfexamples.v1.kopf.dev";
      const gauges = queueGauges(resource);
      const queues = yield* ObjectQueues.make(
        (e) =>
          e.object.metadata?.uid === "bad"
            ? Effect.andThen(Effect.sleep("1 second"), Effect.die(new Error("boom")))
            : Effect.as(Effect.sleep("1 second"), undefined),
        { ...options, resource },
      );
      for (const rv of ["1", "2", "3"]) yield* queues.offer(event("a", rv));
      for (const rv of ["1", "2", "3", "4"]) yield* queues.offer(event("bad", rv));
      yield* settle;
      // Each worker took its first event; the rest wait.
      assert.deepStrictEqual(yield* gauges, { objects: 2, events: 5 });
      yield* TestClock.adjust("1 second");
      yield* settle;
      // "bad" crashed with three events queued: they are gone with its worker.
      assert.deepStrictEqual(yield* gauges, { objects: 1, events: 1 });
      yield* lastEventDoneThenIdle(gauges);
    }).pipe(Effect.scoped, Effect.provide(Logger.layer([]))),
  );

  it.effect("the queue gauges of a resource sum its queues (one per namespace) while they are open", () =>
    Effect.gen(function* () {
      const resource = "kopfexamples.v1.kopf.dev";
      const gauges = queueGauges(resource);
      const slow = (_: RawEvent) => Effect.as(Effect.sleep("1 second"), undefined);
      const first = yield* ObjectQueues.make(slow, { ...options, resource });
      for (const rv of ["1", "2", "3"]) yield* first.offer(event("a", rv));
      // The other namespace's queues, in a scope of their own that closes below.
      const closed = yield* Effect.scoped(
        Effect.gen(function* () {
          const second = yield* ObjectQueues.make(slow, { ...options, resource });
          for (const rv of ["1", "2"]) yield* second.offer(event("b", rv));
          yield* second.offer(event("c", "1"));
          yield* settle;
          // a: one in process, two waiting; b: one in process, one waiting; c: one in process.
          assert.deepStrictEqual(yield* gauges, { objects: 3, events: 3 });
          yield* TestClock.adjust("1 second");
          yield* settle;
          assert.deepStrictEqual(yield* gauges, { objects: 3, events: 1 });
          return yield* gauges;
        }),
      );
      assert.deepStrictEqual(closed, { objects: 3, events: 1 });
      // The second queues have left: only the first one's object and its last event count.
      assert.deepStrictEqual(yield* gauges, { objects: 1, events: 1 });
      // Every queue idle or gone at the end: the series stays, at 0.
      yield* lastEventDoneThenIdle(gauges);
    }).pipe(Effect.scoped, Effect.provide(Logger.layer([]))),
  );

  it.effect("shutdown drains within exitTimeout, then interrupts the rest with a warning", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const done: Array<string> = [];
      const queues = yield* ObjectQueues.make(
        (e) =>
          Effect.gen(function* () {
            if (e.object.metadata?.uid === "slow") yield* Effect.sleep("1 hour");
            done.push(e.object.metadata?.uid ?? "");
            return undefined;
          }),
        { ...options, name: "kopfexamples" },
      );
      yield* queues.offer(event("fast", "1"));
      yield* queues.offer(event("slow", "1"));
      yield* settle;
      const fiber = yield* Effect.forkChild(queues.shutdown);
      yield* settle;
      yield* TestClock.adjust("2 seconds");
      yield* settle;
      assert.isDefined(fiber.pollUnsafe());
      assert.deepStrictEqual(done, ["fast"]);
      assert.isTrue(lines.some((l) => l.includes("Unprocessed streams left for kopfexamples: slow")));
      yield* queues.offer(event("late", "1"));
      yield* settle;
      assert.deepStrictEqual(done, ["fast"]);
    }).pipe(Effect.scoped, Effect.provide(collecting(lines)));
  });

  it.effect(
    "property: every event is processed exactly once, in order per object, whatever the interleaving",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.nat(3)), {
              minLength: 1,
              maxLength: 40,
            }),
            fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
            (script, workerLimit) =>
              Effect.runPromise(
                Effect.gen(function* () {
                  const seen = new Map<string, Array<number>>();
                  const queues = yield* ObjectQueues.make(
                    (e) =>
                      Effect.gen(function* () {
                        const uid = e.object.metadata?.uid ?? "";
                        const [seq, pause] = String(e.object.metadata?.resourceVersion)
                          .split(":")
                          .map(Number);
                        yield* Effect.sleep(`${(pause ?? 0) * 100} millis`);
                        seen.set(uid, [...(seen.get(uid) ?? []), seq as number]);
                        return undefined;
                      }),
                    { ...options, workerLimit, idleTimeout: 0.05 },
                  );
                  const sent = new Map<string, Array<number>>();
                  for (const [index, [uid, pause]] of script.entries()) {
                    sent.set(uid, [...(sent.get(uid) ?? []), index]);
                    yield* queues.offer(event(uid, `${index}:${pause}`));
                    if (index % 3 === 0) yield* TestClock.adjust("50 millis");
                  }
                  for (let i = 0; i < 200 && queues.active().length > 0; i++) {
                    yield* settle;
                    yield* TestClock.adjust("100 millis");
                  }
                  assert.deepStrictEqual(seen, sent);
                }).pipe(Effect.scoped, Effect.provide(TestClock.layer())),
              ),
          ),
          { numRuns: 40 },
        ),
      ),
  );
});

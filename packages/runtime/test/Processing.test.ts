// Covers the processing of single events (docs/behaviour/processing.md#per-event, docs/behaviour/processing.md#cause-order) directly, against the emulator: the
// consistency gate waits for our own patch's version (changing handlers run only after the
// whole wait, not when a newer event cuts it short), stealth mode leaves unmatched objects
// untouched, a running handler holds no processing slot, the index step is left out while the
// engine would do nothing in it, memories follow Kopf (listing ⇒ resume once, DELETED ⇒ forgotten),
// and the echo of our own patch is done at once, without any effect, while every other cycle is
// left to the effectful processing untouched.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Registry } from "@kopf/registry";
import { type RawBody, type RawEvent, Resource } from "@kopf/structs";
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Metric from "effect/Metric";
import * as References from "effect/References";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import type * as Engines from "../src/Engines.ts";
import * as Metrics from "../src/Metrics.ts";
import * as ObjectQueues from "../src/ObjectQueues.ts";
import * as Pressure from "../src/Pressure.ts";
import * as Processing from "../src/Processing.ts";
import * as Throttler from "../src/Throttler.ts";
import * as Harness from "./fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow;
});

const createdBody = (name: string, labels?: Record<string, string>) =>
  Effect.gen(function* () {
    yield* Harness.setup;
    const api = yield* KubeApi;
    const example = {
      ...Harness.example(name),
      metadata: { name, namespace: "ns1", ...(labels ? { labels } : {}) },
    };
    return (yield* api
      .create(Harness.resource, example as RawBody, { namespace: "ns1" })
      .pipe(Effect.orDie)) as RawBody;
  });

describe("Processing", () => {
  it.effect("waits for our own patch's version before running changing handlers", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, function createFn() {
          calls += 1;
        });
        const processor = Processing.make({ registry, resource: Harness.resource, memo: {} });
        const body = yield* createdBody("e1");
        const pressure = yield* Pressure.make;
        const event: RawEvent = { type: "MODIFIED", object: body };

        const waiting = yield* Effect.forkChild(
          processor.process(event, { pressure, consistencyTime: 5000 }),
        );
        yield* settle;
        yield* TestClock.adjust("4 seconds");
        yield* settle;
        assert.strictEqual(calls, 0);
        yield* TestClock.adjust("1 second");
        yield* Fiber.join(waiting);
        assert.strictEqual(calls, 1);

        // A newer event cuts the wait short: the stale state runs no changing handlers.
        const other = yield* createdBody("e2");
        const cut = yield* Effect.forkChild(
          processor.process({ type: "MODIFIED", object: other }, { pressure, consistencyTime: 15000 }),
        );
        yield* settle;
        yield* Pressure.raise(pressure);
        const version = yield* Fiber.join(cut);
        assert.strictEqual(calls, 1);
        assert.strictEqual(version, undefined);
      }),
    ),
  );

  // Fault: the echo of our own second patch (the marks, after the results' status patch) comes
  // later than the consistency timeout, as under a lagging watch. The state in between holds the
  // results but not the marks: Kopf assumes consistency after the timeout and runs the create
  // handler again on it. Counted here: handler runs beyond one per change (must be 0), and a
  // change made after the late echo still handled (nothing lost).
  it.effect.each([
    ["the stale state waits out the deadline", false, 60],
    ["the stale state comes after the deadline", true, 60],
    ["the stale state comes after the deadline and the worker's exit", true, 1],
  ] as const)(
    "a late echo of our own patch: %s — no handler runs twice, nothing is lost",
    ([, afterDeadline, idleTimeout]) =>
      Harness.run(() =>
        Effect.gen(function* () {
          const registry = Registry.make();
          let creates = 0;
          let updates = 0;
          registry.on.create(RES, function createFn() {
            creates += 1;
            return { created: true };
          });
          registry.on.update(RES, function updateFn() {
            updates += 1;
          });
          const processor = Processing.make({ registry, resource: Harness.resource, memo: {} });
          const body = yield* createdBody(`late-${afterDeadline}-${idleTimeout}`);
          const api = yield* KubeApi;
          const versions = api
            .watch(Harness.resource, {
              namespace: "ns1",
              resourceVersion: body.metadata?.resourceVersion as string,
            })
            .pipe(Stream.filter((e) => e.object.metadata?.name === body.metadata?.name));
          const echoes = yield* Effect.forkChild(Stream.runCollect(Stream.take(versions, 2)));
          const queues = yield* ObjectQueues.make(processor.process, {
            idleTimeout,
            exitTimeout: 2,
            workerLimit: null,
            consistencyTimeout: 5,
          });
          yield* queues.offer({ type: "ADDED", object: body });
          yield* settle;
          assert.strictEqual(creates, 1);
          const [results, marks] = Array.from(yield* Fiber.join(echoes));
          assert.isDefined(results);
          assert.isDefined(marks);
          // The results' echo holds the status but not yet the marks.
          assert.deepStrictEqual(results?.object.status, { createFn: { created: true } });

          if (afterDeadline) {
            yield* TestClock.adjust("10 seconds");
            yield* settle;
            assert.strictEqual(queues.active().length, idleTimeout < 5 ? 0 : 1);
          }
          yield* queues.offer(results as RawEvent);
          yield* settle;
          yield* TestClock.adjust("10 seconds");
          yield* settle;
          assert.strictEqual(creates, 1, "the create handler ran again on the stale state");
          yield* queues.offer(marks as RawEvent);
          yield* settle;
          assert.strictEqual(creates, 1);

          // A change after the late echo is handled once, within the consistency timeout.
          const changed = yield* api
            .patch(
              Harness.resource,
              { namespace: "ns1", name: body.metadata?.name as string },
              {
                type: "merge",
                body: { spec: { field: "changed" } },
              },
            )
            .pipe(Effect.orDie);
          yield* queues.offer({ type: "MODIFIED", object: changed });
          yield* settle;
          yield* TestClock.adjust("5 seconds");
          yield* settle;
          assert.strictEqual(updates, 1);
          assert.strictEqual(creates, 1);
          yield* queues.shutdown;
        }).pipe(Effect.scoped),
      ),
  );

  it.effect("a running handler gives its cycle's slot back: a slow one holds up no other object", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const handled: Array<string> = [];
        let release: () => void = () => {};
        const slow = new Promise<void>((resolve) => {
          release = resolve;
        });
        registry.on.create(RES, async function createFn({ name }) {
          if (name === "slow") await slow;
          handled.push(name ?? "");
        });
        const processor = Processing.make({ registry, resource: Harness.resource, memo: {} });
        const bodies = [
          yield* createdBody("slow"),
          yield* createdBody("quick1"),
          yield* createdBody("quick2"),
        ];
        // One slot for all the objects: only the handler's run in it would let the others pass.
        const queues = yield* ObjectQueues.make(processor.process, {
          idleTimeout: 5,
          exitTimeout: 2,
          workerLimit: null,
          consistencyTimeout: 0,
          cycleLimit: 1,
        });
        for (const object of bodies) yield* queues.offer({ type: "ADDED", object });
        for (let i = 0; i < 20 && handled.length < 2; i++) {
          yield* settle;
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));
        }
        assert.deepStrictEqual(handled, ["quick1", "quick2"]);
        release();
        for (let i = 0; i < 20 && handled.length < 3; i++) {
          yield* settle;
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));
        }
        assert.deepStrictEqual(handled, ["quick1", "quick2", "slow"]);
        yield* queues.shutdown;
      }).pipe(Effect.scoped),
    ),
  );

  it.effect("stealth mode: objects no changing handler could match are not touched at all", () =>
    Harness.run(({ log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create(RES, { labels: { app: "mine" } }, function createFn() {});
        const processor = Processing.make({ registry, resource: Harness.resource, memo: {} });
        const foreign = yield* createdBody("foreign", { app: "other" });
        const mine = yield* createdBody("mine", { app: "mine" });
        const pressure = yield* Pressure.make;
        yield* processor.process(
          { type: "ADDED", object: foreign },
          { pressure, consistencyTime: undefined },
        );
        assert.deepStrictEqual(log.patches(), []);
        const version = yield* processor.process(
          { type: "ADDED", object: mine },
          { pressure, consistencyTime: undefined },
        );
        assert.strictEqual(log.patches().length, 1);
        assert.isDefined(version);
      }),
    ),
  );

  it.effect("memories: first seen by listing ⇒ initial; forgotten on DELETED; the memo is a copy", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.event(RES, function eventFn({ memo }) {
          memo.count = Number(memo.count ?? 0) + 1;
          seen.push(String(memo.count));
        });
        const operatorMemo = { count: 10 };
        const processor = Processing.make({ registry, resource: Harness.resource, memo: operatorMemo });
        const body = yield* createdBody("e1");
        const ctx = { pressure: yield* Pressure.make, consistencyTime: undefined };
        yield* processor.process({ type: null, object: body }, ctx);
        const key = body.metadata?.uid as string;
        assert.deepStrictEqual(processor.memories.get(key)?.causes, {
          noticedByListing: true,
          fullyHandledOnce: false,
        });
        yield* processor.process({ type: "MODIFIED", object: body }, ctx);
        yield* processor.process({ type: "DELETED", object: body }, ctx);
        assert.isFalse(processor.memories.has(key));
        assert.deepStrictEqual(seen, ["11", "12", "13"]);
        assert.strictEqual(operatorMemo.count, 10);
      }),
    ),
  );

  it.effect(
    "performs the plan's steps in its order: index, claim, on.event, spawn, handlers, fence, patch, release",
    () =>
      Harness.run(({ log }) =>
        Effect.gen(function* () {
          const order: Array<string> = [];
          const note = (step: string) => Effect.sync(() => void order.push(step));
          const registry = Registry.make();
          registry.on.event(RES, function eventFn() {
            order.push("on.event");
          });
          registry.on.create(RES, function createFn() {
            order.push("on.create");
            return "done";
          });
          registry.on.daemon(RES, async function daemonFn() {});
          const engines: Engines.Engines = {
            indexing: () => note("index"),
            ownership: {
              claim: () => Effect.as(note("claim"), true),
              holds: () =>
                Effect.suspend(() => Effect.as(note(`fence after ${log.patches().length} writes`), true)),
              release: () => Effect.suspend(() => note(`release after ${log.patches().length} writes`)),
              gains: Effect.succeed(Stream.empty),
            },
            spawning: () => Effect.as(note("spawn"), { delays: [], excluded: new Set<string>() }),
          };
          const processor = Processing.make({ registry, resource: Harness.resource, memo: {}, engines });
          yield* Harness.setup;
          const api = yield* KubeApi;
          const example = Harness.example("ordered");
          const body = (yield* api
            .create(
              Harness.resource,
              {
                ...example,
                metadata: { name: "ordered", namespace: "ns1", finalizers: [FINALIZER] },
              } as RawBody,
              { namespace: "ns1" },
            )
            .pipe(Effect.orDie)) as RawBody;
          const pressure = yield* Pressure.make;
          const version = yield* processor.process(
            { type: "ADDED", object: body },
            { pressure, consistencyTime: undefined },
          );
          assert.deepStrictEqual(order, [
            "index",
            "claim",
            "on.event",
            "spawn",
            "on.create",
            "fence after 0 writes",
            "release after 2 writes",
          ]);
          assert.isDefined(version);
        }),
      ),
  );

  it.effect("leaves the index step out while the engine says it would do nothing for the resource", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const order: Array<string> = [];
        const registry = Registry.make();
        registry.on.event(RES, function eventFn() {
          order.push("on.event");
        });
        let idle = false;
        const engines: Engines.Engines = {
          indexing: () => Effect.sync(() => void order.push("index")),
          indexed: Effect.sync(() => void order.push("indexed")),
          indexIdle: (resource) => {
            assert.strictEqual(resource, Harness.resource);
            return idle;
          },
        };
        const processor = Processing.make({ registry, resource: Harness.resource, memo: {}, engines });
        yield* Harness.setup;
        const api = yield* KubeApi;
        const body = (yield* api
          .create(Harness.resource, Harness.example("indexed") as RawBody, { namespace: "ns1" })
          .pipe(Effect.orDie)) as RawBody;
        const pressure = yield* Pressure.make;
        yield* processor.process({ type: "ADDED", object: body }, { pressure, consistencyTime: undefined });
        assert.deepStrictEqual(order, ["index", "indexed", "on.event"]);
        idle = true;
        order.length = 0;
        yield* processor.process(
          { type: "MODIFIED", object: body },
          { pressure, consistencyTime: undefined },
        );
        assert.deepStrictEqual(order, ["on.event"]);
      }),
    ),
  );

  // The echo of our own patch needs no effect: `quick` does it at once, as `process` would.
  // Every other cycle is left to `process` untouched (no memory made or changed, nothing run).
  it.effect(
    "quick: the echo of our own patch is done at once; other cycles are left to process, untouched",
    () =>
      Harness.run(() =>
        Effect.gen(function* () {
          const registry = Registry.make();
          const calls: Array<string> = [];
          registry.on.create(RES, function createFn() {
            calls.push("create");
          });
          registry.on.update(RES, function updateFn() {
            calls.push("update");
          });
          // The selection asks the registry for the changing handlers: counted, to see work done.
          let selections = 0;
          const counted: Registry.Registry = {
            ...registry,
            changingFor: (resource) => {
              selections += 1;
              return registry.changingFor(resource);
            },
          };
          const processor = Processing.make({ registry: counted, resource: Harness.resource, memo: {} });
          const api = yield* KubeApi;
          const body = yield* createdBody("quick");
          const where = { namespace: "ns1", name: "quick" };
          const uid = body.metadata?.uid as string;
          const pressure = yield* Pressure.make;
          const calm = { pressure, consistencyTime: undefined };
          // The harness logs debug lines: such a line is an effect, and the cycle is not done at once.
          const debugging = yield* Effect.context<never>();
          const services = Context.add(debugging, References.MinimumLogLevel, "Info");
          const modified = (object: RawBody): RawEvent => ({ type: "MODIFIED", object });

          // Not seen yet: no memory is made for it.
          assert.strictEqual(processor.quick(modified(body), calm, services), ObjectQueues.NOT_QUICK);
          assert.strictEqual(processor.memories.size, 0);
          yield* processor.process({ type: "ADDED", object: body }, calm);
          assert.deepStrictEqual(calls, ["create"]);

          const echoed = (yield* api.get(Harness.resource, where).pipe(Effect.orDie)) as RawBody;
          const memory = processor.memories.get(uid);
          assert.isTrue(memory?.causes.fullyHandledOnce);
          const before = memory?.causes;
          // Debug lines wanted: left to process.
          assert.strictEqual(processor.quick(modified(echoed), calm, debugging), ObjectQueues.NOT_QUICK);
          // The echo: done at once, the same answer as process, nothing written or run.
          assert.isUndefined(processor.quick(modified(echoed), calm, services));
          assert.isUndefined(yield* processor.process(modified(echoed), calm));
          // With a version of our patch awaited and nothing queued, the wait for it stands in the
          // way (every changing cause waits, one with nothing changed too): the queues are told
          // to try again once it would have ended.
          const awaited = { pressure, consistencyTime: 5_000 };
          assert.isTrue(ObjectQueues.isAwaitNewer(processor.quick(modified(echoed), awaited, services)));
          // A state older than our patch (the body before it): a creation to handle, but only once
          // the awaited version has come. Nothing queued: the same.
          const stale = modified(body);
          const selected = selections;
          const waiting = processor.quick(stale, awaited, services);
          if (!ObjectQueues.isAwaitNewer(waiting))
            return assert.fail(`awaits the echo, not ${String(waiting)}`);
          assert.strictEqual(selections, selected + 1);
          const { resume } = waiting;
          // Carried on with still nothing newer (the worker woken early): the same wait again,
          // its handlers not chosen again.
          assert.isTrue(ObjectQueues.isAwaitNewer(resume()));
          assert.strictEqual(selections, selected + 1);
          // Past the deadline the object is re-read (an effect): left to process.
          const overdue = { pressure, consistencyTime: 0 };
          assert.strictEqual(processor.quick(stale, overdue, services), ObjectQueues.NOT_QUICK);
          // With a newer event queued, the wait would be cut short: the stale state is done at once,
          // its handlers not run (it is not consistent), as process does it; carried on from its
          // wait, the same answer without choosing its handlers again.
          Pressure.raiseUnsafe(pressure, yield* Effect.fiber);
          const resumedAt = selections;
          assert.isUndefined(resume());
          assert.strictEqual(selections, resumedAt);
          assert.isUndefined(processor.quick(stale, awaited, services));
          assert.strictEqual(selections, resumedAt + 1);
          assert.isUndefined(yield* processor.process(stale, awaited));
          Pressure.clearUnsafe(pressure);
          // Carried on once the deadline has passed with nothing newer: the object is to be
          // re-read, an effect, so the whole cycle is left to process.
          const soon = { pressure, consistencyTime: (yield* Clock.currentTimeMillis) + 1_000 };
          const late = processor.quick(stale, soon, services);
          assert.isTrue(ObjectQueues.isAwaitNewer(late));
          yield* TestClock.adjust("2 seconds");
          assert.strictEqual(ObjectQueues.isAwaitNewer(late) && late.resume(), ObjectQueues.NOT_QUICK);
          const after = (yield* api.get(Harness.resource, where).pipe(Effect.orDie)) as RawBody;
          assert.strictEqual(after.metadata?.resourceVersion, echoed.metadata?.resourceVersion);
          assert.deepStrictEqual(calls, ["create"]);
          assert.strictEqual(memory?.causes, before);

          // A real change: the update handler must run, so quick leaves it, changing nothing.
          const changed = (yield* api
            .patch(Harness.resource, where, { type: "merge", body: { spec: { field: "changed" } } })
            .pipe(Effect.orDie)) as RawBody;
          assert.strictEqual(processor.quick(modified(changed), calm, services), ObjectQueues.NOT_QUICK);
          assert.deepStrictEqual(calls, ["create"]);
          assert.strictEqual(memory?.causes, before);
          yield* processor.process(modified(changed), calm);
          assert.deepStrictEqual(calls, ["create", "update"]);

          // A throttled object sleeps first: left to process.
          const settled = (yield* api.get(Harness.resource, where).pipe(Effect.orDie)) as RawBody;
          assert.isUndefined(processor.quick(modified(settled), calm, services));
          if (memory !== undefined) memory.throttler = { activeUntil: 60_000, used: 1, lastDelay: 60 };
          assert.strictEqual(processor.quick(modified(settled), calm, services), ObjectQueues.NOT_QUICK);
          if (memory !== undefined) memory.throttler = Throttler.initial;

          // Being deleted with our finalizer: the delete handlers or the release, effects. Left to
          // process before anything is worked out.
          const deleting: RawBody = {
            ...settled,
            metadata: {
              ...settled.metadata,
              deletionTimestamp: "2026-12-05T00:00:00Z",
              finalizers: [FINALIZER],
            },
          };
          const selectedBefore = selections;
          assert.strictEqual(processor.quick(modified(deleting), calm, services), ObjectQueues.NOT_QUICK);
          assert.strictEqual(selections, selectedBefore);

          // With on.event handlers, every cycle runs them: not tried.
          registry.on.event(RES, function eventFn() {
            calls.push("event");
          });
          assert.strictEqual(processor.quick(modified(settled), calm, services), ObjectQueues.NOT_QUICK);
          assert.deepStrictEqual(calls, ["create", "update"]);
        }),
      ),
  );
  // The DELETED event of an object handled already needs no effect either: done at once, and the
  // object forgotten as processing forgets it (the gauge of objects known too).
  it.effect("quick: a handled object's deletion event is done at once and the object forgotten", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create(RES, function createFn() {});
        const processor = Processing.make({ registry, resource: Harness.resource, memo: {} });
        const resource = Resource.toString(Harness.resource);
        const known = Metric.value(Metric.withAttributes(Metrics.objectsKnown, { resource })).pipe(
          Effect.map((state) => state.value),
        );
        const services = Context.add(yield* Effect.context<never>(), References.MinimumLogLevel, "Info");
        const calm = { pressure: yield* Pressure.make, consistencyTime: undefined };
        const body = yield* createdBody("gone");
        const deleted: RawEvent = { type: "DELETED", object: body };
        // Not seen yet: left to process.
        assert.strictEqual(processor.quick(deleted, calm, services), ObjectQueues.NOT_QUICK);
        yield* processor.process({ type: "ADDED", object: body }, calm);
        assert.strictEqual(processor.memories.size, 1);
        assert.strictEqual(yield* known, 1);
        assert.isUndefined(processor.quick(deleted, calm, services));
        assert.strictEqual(processor.memories.size, 0);
        assert.strictEqual(yield* known, 0);
      }),
    ),
  );
});

// A property over random fault schedules, in virtual time against the scripted backend: whatever
// happens (writes, dropped or broken streams, lost history, ERROR events, failed listings, quiet
// periods), the stream never ends, and the state a consumer rebuilds from it (listed items,
// events, synthetic deletions) converges to the server's state once the faults stop.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import * as Watcher from "../src/Watcher.ts";
import * as FakeCluster from "./fixtures/FakeCluster.ts";

type Step =
  | { readonly op: "create" | "update" | "remove"; readonly name: string }
  | { readonly op: "drop" | "break" | "lose-history" | "error-event" | "fail-list" | "fail-watch" }
  | { readonly op: "wait"; readonly millis: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constantFrom("create" as const, "update" as const, "remove" as const),
      name: fc.constantFrom("a", "b", "c", "d", "e"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom(
        "drop" as const,
        "break" as const,
        "lose-history" as const,
        "error-event" as const,
        "fail-list" as const,
        "fail-watch" as const,
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("wait" as const), millis: fc.integer({ min: 0, max: 80_000 }) }),
  },
);

const settle = Effect.gen(function* () {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow;
});

const scenario = (steps: ReadonlyArray<Step>) =>
  Effect.gen(function* () {
    const fake = yield* FakeCluster.make;
    const alive = new Set<string>();
    const view = new Map<string, string | undefined>();
    const fiber = yield* Effect.forkChild(
      Stream.runForEach(
        Watcher.fromListWatch(fake, { resource: "convergence.v1", namespace: "ns1" }, {}),
        (item) =>
          Effect.sync(() => {
            if (item._tag !== "Event") return;
            const name = item.object.metadata?.name ?? "?";
            if (item.type === "DELETED") view.delete(name);
            else view.set(name, item.object.metadata?.resourceVersion);
          }),
      ),
    );
    for (const step of steps) {
      switch (step.op) {
        case "create":
          if (!alive.has(step.name)) {
            alive.add(step.name);
            yield* fake.create(step.name);
          }
          break;
        case "update":
          if (alive.has(step.name)) yield* fake.update(step.name, { at: fake.rv() });
          break;
        case "remove":
          if (alive.delete(step.name)) yield* fake.remove(step.name);
          break;
        case "drop":
          yield* fake.dropWatches;
          break;
        case "break":
          yield* fake.breakWatches(FakeCluster.failure("TransportError", "reset"));
          break;
        case "lose-history":
          yield* fake.compact;
          yield* fake.dropWatches;
          break;
        case "error-event":
          yield* fake.send({
            type: "ERROR",
            object: { kind: "Status", code: 500, message: "oops" } as never,
          });
          break;
        case "fail-list":
          fake.failNext("list", FakeCluster.failure("ServerError", "boom", 500), 2);
          break;
        case "fail-watch":
          fake.failNext("watch", FakeCluster.failure("Timeout", "slow"), 2);
          break;
        case "wait":
          yield* TestClock.adjust(step.millis);
          break;
      }
      yield* settle;
    }
    // Faults stop: let every backoff run out.
    for (let i = 0; i < 10; i++) {
      yield* TestClock.adjust("30 seconds");
      yield* settle;
    }
    assert.isUndefined(fiber.pollUnsafe(), "the stream must never end");
    const server = new Map<string, string | undefined>();
    for (const event of fake.history) {
      const name = event.object.metadata?.name ?? "?";
      if (event.type === "DELETED") server.delete(name);
      else server.set(name, event.object.metadata?.resourceVersion);
    }
    assert.deepStrictEqual([...view.entries()].sort(), [...server.entries()].sort());
    yield* Fiber.interrupt(fiber);
  });

describe("Watcher convergence", () => {
  it.effect("the rebuilt state always converges to the server's, and the stream never ends", () =>
    Effect.gen(function* () {
      const runs = fc.sample(fc.array(stepArb, { minLength: 5, maxLength: 40 }), { numRuns: 60, seed: 4242 });
      for (const steps of runs) yield* scenario(steps);
    }),
  );
});

// The overhead benchmark's count of Effect's run-loop steps (bench/internal/effectSteps.ts): a
// counter counts every step of the fibers it is given (and of those they fork), each step of a
// longer chain once more, the same count for the same effect every time; a context given to
// another counter counts there and not here; and the effects run as they would without it.
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { describe, expect, it } from "vitest";
import { makeStepCounter, type StepCounter } from "../../bench/internal/effectSteps.ts";

/** `links` flatMaps in a row, each adding one. */
const chain = (links: number): Effect.Effect<number> => {
  let effect = Effect.succeed(0);
  for (let i = 0; i < links; i++) effect = Effect.flatMap(effect, (n) => Effect.succeed(n + 1));
  return effect;
};

/** The steps `effect` takes under a fresh counter, and its result. */
const stepsOf = <A>(effect: Effect.Effect<A>, counter: StepCounter = makeStepCounter()) => {
  const value = Effect.runSync(counter.counting(effect));
  return { value, steps: counter.count() };
};

describe("makeStepCounter", () => {
  it("counts every step: a longer chain by the same number per link, the same effect the same", () => {
    const ten = stepsOf(chain(10));
    const twenty = stepsOf(chain(20));
    const thirty = stepsOf(chain(30));
    expect([ten.value, twenty.value, thirty.value]).toEqual([10, 20, 30]);
    const perLink = (thirty.steps - twenty.steps) / 10;
    expect(perLink).toBeGreaterThanOrEqual(1);
    expect(twenty.steps - ten.steps).toBe(10 * perLink);
    expect(stepsOf(chain(20)).steps).toBe(twenty.steps);
  });

  it("counts the steps of the fibers forked under it", () => {
    const alone = stepsOf(Effect.void).steps;
    const forked = stepsOf(Effect.flatMap(Effect.forkChild(chain(50)), Fiber.join));
    expect(forked.value).toBe(50);
    expect(forked.steps - alone).toBeGreaterThanOrEqual(50);
  });

  it("reset starts the count again", () => {
    const counter = makeStepCounter();
    Effect.runSync(counter.counting(chain(10)));
    expect(counter.count()).toBeGreaterThan(0);
    counter.reset();
    expect(counter.count()).toBe(0);
  });

  it("counts a context given to another counter there, not here", async () => {
    const outer = makeStepCounter();
    const inner = makeStepCounter();
    const handedOver = Effect.withFiber((fiber) =>
      Effect.promise(() => Effect.runPromiseWith(inner.into(fiber.context))(chain(40))),
    );
    const value = await Effect.runPromise(outer.counting(handedOver));
    expect(value).toBe(40);
    expect(inner.count()).toBeGreaterThanOrEqual(40);
    const aroundOnly = makeStepCounter();
    await Effect.runPromise(
      aroundOnly.counting(Effect.withFiber(() => Effect.promise(() => Promise.resolve(40)))),
    );
    expect(outer.count()).toBe(aroundOnly.count());
  });

  it("leaves the scheduling to the scheduler in force: yields and sleeps run as without it", async () => {
    const counter = makeStepCounter();
    const interleaving = (run: (effect: Effect.Effect<void>) => Effect.Effect<void>) => {
      const order: Array<string> = [];
      const task = (name: string) =>
        Effect.gen(function* () {
          for (let i = 0; i < 2; i++) {
            order.push(`${name}${i}`);
            yield* Effect.yieldNow;
          }
        });
      return Effect.as(run(Effect.all([task("a"), task("b")], { concurrency: 2, discard: true })), order);
    };
    const order = await Effect.runPromise(interleaving(counter.counting));
    const plain = await Effect.runPromise(interleaving((effect) => effect));
    expect(order).toEqual(plain);
    expect(await Effect.runPromise(counter.counting(Effect.as(Effect.sleep("1 millis"), "slept")))).toBe(
      "slept",
    );
  });
});

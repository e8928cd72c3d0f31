// Covers invoking sync, async and Effect handlers with one context object: their results,
// every way they can fail (thrown, rejected, failed, died) kept as a HandlerFailure, interruption
// staying an interruption, and the ambient runner wrapping the call while a binding is current.
import { assert, describe, expect, it } from "@effect/vitest";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import { AmbientRunner, type Binding, CurrentBinding } from "../../src/execution/Ambient.ts";
import { HandlerFailure, invoke } from "../../src/execution/Invocation.ts";

const failureOf = (exit: Exit.Exit<unknown, HandlerFailure>): HandlerFailure => {
  assert.isTrue(Exit.isFailure(exit));
  const found = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined;
  assert.strictEqual(found?._tag, "Some");
  return (found as { value: HandlerFailure }).value;
};

describe("results", () => {
  it.effect("of a sync handler", () =>
    Effect.gen(function* () {
      expect(yield* invoke(({ n }: { n: number }) => n + 1, { n: 1 })).toBe(2);
    }),
  );

  it.effect("of an async handler", () =>
    Effect.gen(function* () {
      expect(yield* invoke(async ({ n }: { n: number }) => n * 2, { n: 21 })).toBe(42);
    }),
  );

  it.effect("of an Effect handler, run on the test clock", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        invoke(({ n }: { n: number }) => Effect.as(Effect.sleep("10 seconds"), n), { n: 7 }),
      );
      yield* TestClock.adjust("10 seconds");
      expect(yield* Fiber.join(fiber)).toBe(7);
    }),
  );

  it.effect("of an Effect handler whose finalizers run when the call ends", () =>
    Effect.gen(function* () {
      const events: Array<string> = [];
      const result = yield* invoke(
        () =>
          Effect.gen(function* () {
            yield* Effect.addFinalizer(() => Effect.sync(() => events.push("released")));
            events.push("used");
            return "done";
          }),
        {},
      );
      events.push(`returned ${String(result)}`);
      expect(events).toEqual(["used", "released", "returned done"]);
    }),
  );

  it.effect("undefined when a handler returns nothing", () =>
    Effect.gen(function* () {
      expect(yield* invoke(() => {}, {})).toBeUndefined();
    }),
  );
});

describe("failures", () => {
  const boom = new Error("boom");
  it.effect.each([
    [
      "a sync throw",
      () => {
        throw boom;
      },
      "Thrown",
    ],
    [
      "an async rejection",
      async () => {
        throw boom;
      },
      "Rejected",
    ],
    ["an Effect failure", () => Effect.fail(boom), "Failed"],
    ["an Effect defect", () => Effect.die(boom), "Died"],
    [
      "a throw inside Effect.sync",
      () =>
        Effect.sync(() => {
          throw boom;
        }),
      "Died",
    ],
  ] as const)("%s", ([_name, fn, reason]) =>
    Effect.gen(function* () {
      const failure = failureOf(yield* Effect.exit(invoke(fn, {})));
      expect(failure).toBeInstanceOf(HandlerFailure);
      expect(failure.reason).toBe(reason);
      expect(failure.error).toBe(boom);
    }),
  );

  it.effect("an interrupted Effect handler stays interrupted", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(invoke(() => Effect.interrupt, {}));
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause));
    }),
  );
});

describe("the ambient binding", () => {
  const binding = { handler: { id: "parent" } } as unknown as Binding;

  it.effect("wraps the call in the runner while a binding is current", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = [];
      const runner: AmbientRunner = {
        run: (b, call) => {
          seen.push(b);
          return call();
        },
      };
      yield* invoke(() => "x", {}).pipe(
        Effect.provideService(AmbientRunner, runner),
        Effect.provideService(CurrentBinding, binding),
      );
      yield* invoke(() => "y", {}).pipe(Effect.provideService(AmbientRunner, runner));
      expect(seen).toEqual([binding]);
    }),
  );

  it.effect("is visible to Effect handlers through their fiber", () =>
    Effect.gen(function* () {
      const result = yield* invoke(() => Effect.service(CurrentBinding), {}).pipe(
        Effect.provideService(CurrentBinding, binding),
      );
      expect(result).toBe(binding);
    }),
  );
});

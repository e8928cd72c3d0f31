/**
 * Invocation of one handler function with its single context object, whatever kind of
 * function it is (Kopf's `invocation.invoke`):
 *
 * - a **sync** function is called on the event loop. Node has no threads for JavaScript, so
 *   it blocks everything — other objects included — for exactly as long as it runs, and no
 *   longer: keep it short, or make it `async` and `await` the slow parts (I/O never blocks);
 *   CPU-heavy work belongs in a worker thread the handler awaits;
 * - an **async** function (or any function returning a promise) is awaited; other objects are
 *   handled meanwhile;
 * - a function returning an **Effect** has it run in the handler's fiber (interruptible, on the
 *   operator's `Clock`, with the ambient `CurrentBinding` in its context, in a scope of its own
 *   that closes when the call ends).
 *
 * Whatever the function throws, rejects with, fails with or dies with becomes a
 * `HandlerFailure` carrying it, for `ErrorModes` to judge; an interruption stays an
 * interruption (the cancellation Kopf escalates).
 */

import type { RawBody } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Scope from "effect/Scope";
import { AmbientRunner, CurrentBinding, CurrentObject } from "./Ambient.ts";

/** How a handler call went wrong, besides what it went wrong with. */
export type HandlerFailureReason = "Thrown" | "Rejected" | "Failed" | "Died";

/**
 * A handler's own failure: `error` is what it threw, rejected with, or failed/died with.
 *
 * @example
 * Effect.catchTag("HandlerFailure", (f) => Effect.succeed(f.error))
 */
export class HandlerFailure extends Data.TaggedError("HandlerFailure")<{
  readonly reason: HandlerFailureReason;
  readonly error: unknown;
}> {}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

const runEffect = (
  effect: Effect.Effect<unknown, unknown, unknown>,
): Effect.Effect<unknown, HandlerFailure> =>
  // Each invocation has its own scope: a handler's finalizers run when it ends, not with the operator.
  Effect.exit(Effect.scoped(effect as Effect.Effect<unknown, unknown, Scope.Scope>)).pipe(
    Effect.flatMap((exit) => {
      if (Exit.isSuccess(exit)) return Effect.succeed(exit.value);
      const cause = exit.cause;
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt;
      const error = Cause.findErrorOption(cause);
      return error._tag === "Some"
        ? Effect.fail(new HandlerFailure({ reason: "Failed", error: error.value }))
        : Effect.fail(new HandlerFailure({ reason: "Died", error: Cause.squash(cause) }));
    }),
  );

/** The object a resource handler's context is about (its `body`), if it has one. */
const objectOf = (context: unknown): RawBody | undefined => {
  const body =
    typeof context === "object" && context !== null ? (context as { body?: unknown }).body : undefined;
  return typeof body === "object" && body !== null ? (body as RawBody) : undefined;
};

/**
 * Calls `fn(context)` and completes with its result: the value, the awaited promise, or the
 * Effect's success. With a `CurrentBinding` in the fiber's context, the call runs inside the
 * `AmbientRunner` so `register`/`subhandler`/`execute` reach the running handler.
 *
 * @example
 * const result = yield* Invocation.invoke(async ({ name }) => ({ greeted: name }), context)
 */
export const invoke = <C>(fn: (context: C) => unknown, context: C): Effect.Effect<unknown, HandlerFailure> =>
  Effect.withFiber((fiber) => {
    const binding = fiber.getRef(CurrentBinding);
    const runner = fiber.getRef(AmbientRunner);
    // Handlers of other kinds get their object ambient too (the hierarchies kit's owner).
    const body = binding === undefined ? objectOf(context) : undefined;
    let returned: unknown;
    try {
      returned =
        binding !== undefined
          ? runner.run(binding, () => fn(context))
          : body !== undefined && runner.runObject !== undefined
            ? runner.runObject(body, () => fn(context))
            : fn(context);
    } catch (error) {
      return Effect.fail(new HandlerFailure({ reason: "Thrown", error }));
    }
    if (Effect.isEffect(returned)) {
      return body === undefined
        ? runEffect(returned)
        : runEffect(returned).pipe(Effect.provideService(CurrentObject, body));
    }
    if (isPromiseLike(returned)) {
      return Effect.tryPromise({
        try: () => Promise.resolve(returned),
        catch: (error) => new HandlerFailure({ reason: "Rejected", error }),
      });
    }
    return Effect.succeed(returned);
  });

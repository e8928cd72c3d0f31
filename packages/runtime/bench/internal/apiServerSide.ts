// The API server's side of an in-process request in the overhead benchmark (overhead.bench.ts):
// the emulator's answer runs in a fiber of its own, under a frame of this file, which the seams
// (internal/seams.ts) give to the emulator, and whose run-loop steps count apart from the
// operator's (internal/effectSteps.ts).
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Exit from "effect/Exit";
import type * as Fiber from "effect/Fiber";
import { makeStepCounter } from "./effectSteps.ts";

/** The run-loop steps of the API server's answers (and of the fibers they fork). */
export const apiServerSteps = makeStepCounter();

/**
 * Runs an in-process request's answer (the emulator's effect) in a fiber of its own, started
 * synchronously from {@link apiServerSide}: the emulator answers without waiting, so Effect's
 * machinery interpreting its steps runs on a stack under that frame, and the profiles give it to
 * the API server (`seams.ts` gives this file to it), as they would if it ran in a process of its
 * own. Run in the asking worker's fiber (as the transport alone does), it was on a stack whose
 * innermost framework frame is the worker's start, and counted as the framework's orchestration.
 * The answering fiber has the asking one's services and is interrupted with it.
 *
 * @example
 * ```ts
 * request: (request) => onApiServerSide(inner.request(request))
 * ```
 */
export const onApiServerSide = <A, E>(answer: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.withFiber((asking) =>
    Effect.callback<A, E>((resume) => {
      const answering = apiServerSide(asking.context, answer, resume);
      return Effect.sync(() => answering.interruptUnsafe(asking.id));
    }),
  );

/** The frame under which the answer runs (see {@link onApiServerSide}). */
function apiServerSide<A, E>(
  context: Context.Context<never>,
  answer: Effect.Effect<A, E>,
  resume: (exit: Exit.Exit<A, E>) => void,
): Fiber.Fiber<A, E> {
  const answering = Effect.runForkWith(apiServerSteps.into(context))(answer);
  answering.addObserver(resume);
  return answering;
}

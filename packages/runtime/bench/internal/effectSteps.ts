// How many steps Effect's run loop takes for the overhead benchmark (overhead.bench.ts): every
// operation a fiber evaluates (a `flatMap`'s continuation, a `suspend`, a `withFiber`, a value
// passed on) first asks the fiber's scheduler whether to yield, so a scheduler that counts those
// questions and leaves every decision to Effect's own counts the operations exactly. A count of
// work, not of time: on a quiet machine it comes out the same in every round, where the CPU time
// moves by ±20%, so it is the figure to judge a change to the number of Effect operations on an
// object's path by; under load it rises with the work that timing brings (waits that run out and
// re-read an object, cycles that queue for a slot). The operator's fibers and the API server's
// answers (`apiServerSide.ts`) count apart.
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as Scheduler from "effect/Scheduler";

/** A counter of run-loop steps, and the scheduler that counts into it. */
export interface StepCounter {
  /** Steps counted since the last {@link reset}. */
  readonly count: () => number;
  readonly reset: () => void;
  /**
   * Counts the steps of `effect`'s fibers (and of those they fork) with the scheduler in force
   * around it: every decision, and the dispatchers, stay that scheduler's.
   */
  readonly counting: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
  /** `context` with this counter's scheduler (wrapping the one `context` has) in force. */
  readonly into: (context: Context.Context<never>) => Context.Context<never>;
}

/** The scheduler each counting one wraps: a counter's scheduler never wraps another's. */
const wrapped = new WeakMap<Scheduler.Scheduler, Scheduler.Scheduler>();

/** A scheduler that counts `shouldYield`'s questions and answers as `inner` does. */
const countingScheduler = (inner: Scheduler.Scheduler, steps: { value: number }): Scheduler.Scheduler => {
  const counting: Scheduler.Scheduler = {
    executionMode: inner.executionMode,
    shouldYield: (fiber: Fiber.Fiber<unknown, unknown>) => {
      steps.value += 1;
      return inner.shouldYield(fiber);
    },
    makeDispatcher: () => inner.makeDispatcher(),
  };
  wrapped.set(counting, inner);
  return counting;
};

/**
 * A new counter of run-loop steps.
 *
 * @example
 * const operatorSteps = makeStepCounter()
 * yield* operatorSteps.counting(runTheOperator)
 * operatorSteps.count() / objects // Effect operations per object
 */
export const makeStepCounter = (): StepCounter => {
  const steps = { value: 0 };
  const wrappers = new WeakMap<Scheduler.Scheduler, Scheduler.Scheduler>();
  // The scheduler in force may be another counter's: its steps are then counted here instead.
  const wrap = (current: Scheduler.Scheduler): Scheduler.Scheduler => {
    const inner = wrapped.get(current) ?? current;
    let counting = wrappers.get(inner);
    if (counting === undefined) {
      counting = countingScheduler(inner, steps);
      wrappers.set(inner, counting);
    }
    return counting;
  };
  return {
    count: () => steps.value,
    reset: () => {
      steps.value = 0;
    },
    counting: (effect) =>
      Effect.withFiber((fiber) =>
        Effect.provideService(effect, Scheduler.Scheduler, wrap(fiber.getRef(Scheduler.Scheduler))),
      ),
    into: (context) =>
      Context.add(context, Scheduler.Scheduler, wrap(Context.get(context, Scheduler.Scheduler))),
  };
};

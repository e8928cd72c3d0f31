/**
 * Sub-handlers (docs/behaviour/processing.md#sub-handlers): every invocation of a changing handler gets a fresh sub-registry
 * (`ctx.subregistry`, and the ambient binding for `register`/`subhandler`/`execute` without a
 * context). The sub-handlers declared during the call run right after it returns (unless the
 * handler ran them itself with `execute`), with the parent's lifecycle and cause; their
 * progress is kept under their own ids (`parent/child`), their results go to the status, and
 * every ancestor lists them in its `subrefs`. While some are not done, the parent is retried
 * after the shortest of their delays (`HandlerChildrenRetry`), so a parent must declare the
 * same sub-handlers on every call.
 */
import {
  type ChangingHandler,
  type HandlerCause,
  type HandlerFn,
  type Lifecycle,
  Matching,
  type Options,
  type RegistrationError,
  SubRegistry,
} from "@kopf/registry";
import type { OperatorSettings } from "@kopf/settings";
import { Outcome, State, type StorageDecodeError } from "@kopf/storage";
import { IsoTime } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Result from "effect/Result";
import { type Binding, CurrentBinding, type ExecuteOptions } from "./Ambient.ts";
import { HandlerChildrenRetry } from "./ErrorModes.ts";
import { type ExtraContext, executeHandlersOnce, type Subcontext } from "./Handling.ts";

/** Sub-handling used wrongly: outside a changing handler, or with conflicting arguments. */
export class SubhandlingError extends Data.TaggedError("SubhandlingError")<{
  readonly reason: "OutsideHandler" | "ConflictingArguments";
  readonly message: string;
}> {}

const outside = (what: string) =>
  new SubhandlingError({
    reason: "OutsideHandler",
    message: `${what} can only be used while a resource-changing handler runs (sub-handlers of other handlers have no retries or state tracking).`,
  });

/** The sub-handlers to run for explicit `execute` options (ids prefixed with the parent's). */
export const handlersOf = (
  parent: ChangingHandler,
  options: ExecuteOptions,
): Result.Result<ReadonlyArray<ChangingHandler>, SubhandlingError | RegistrationError> => {
  const given = [options.fns, options.handlers, options.registry].filter((v) => v !== undefined);
  if (given.length > 1) {
    return Result.fail(
      new SubhandlingError({
        reason: "ConflictingArguments",
        message: "Only one of the fns, handlers, registry can be passed. Got more.",
      }),
    );
  }
  if (options.handlers !== undefined) return Result.succeed([...options.handlers]);
  if (options.registry !== undefined) return Result.succeed(options.registry.handlers);
  const fns = options.fns;
  const entries: ReadonlyArray<readonly [string | undefined, HandlerFn<any>]> = Array.isArray(fns)
    ? fns.map((fn) => [undefined, fn] as const)
    : Object.entries(fns ?? {});
  const built: Array<ChangingHandler> = [];
  for (const [id, fn] of entries) {
    const made = SubRegistry.makeSubhandler(parent, fn, id === undefined ? {} : { id }, "register");
    if (Result.isFailure(made)) return Result.fail(made.failure);
    built.push(made.success);
  }
  return Result.succeed(built);
};

/** What a run of sub-handlers needs from its parent's invocation. */
export interface SubhandlersRun {
  readonly handlers: ReadonlyArray<ChangingHandler>;
  readonly cause: HandlerCause.ChangingCause;
  readonly settings: OperatorSettings;
  readonly lifecycle: Lifecycle;
  /** The `subrefs` collectors of all ancestors, the innermost last. */
  readonly ancestors: ReadonlyArray<Set<string>>;
}

/**
 * Runs sub-handlers once (Kopf's `kopf.execute` body): loads their states, executes the
 * awakened ones per the lifecycle, stores their progress and results into the cause's patch,
 * registers them with all ancestors, and fails with `HandlerChildrenRetry` unless all are done.
 */
export const executeSubhandlers = (
  run: SubhandlersRun,
): Effect.Effect<void, HandlerChildrenRetry | StorageDecodeError | State.StateError> =>
  Effect.suspend(() => executeSubhandlersNow(run) ?? Effect.void);

type SubhandlersError = HandlerChildrenRetry | StorageDecodeError | State.StateError;

/**
 * {@link executeSubhandlers}, begun at once: with no sub-handlers (a handler that declared none)
 * there is nothing to load, run or store, only the progress storage's flush, done now, and nothing
 * is left to run (`undefined`); else the effect that runs them.
 */
const executeSubhandlersNow = (run: SubhandlersRun): Effect.Effect<void, SubhandlersError> | undefined => {
  if (run.handlers.length === 0) {
    run.settings.persistence.progressStorage.flush();
    return undefined;
  }
  return Effect.gen(function* () {
    const { cause, settings } = run;
    const storage = settings.persistence.progressStorage;
    const owned = Matching.deduplicated(
      run.handlers.filter((h) => Matching.matchesResource(h, cause.resource)),
    );
    const selected = Matching.changingHandlers(owned, cause);
    const loadedAt = yield* IsoTime.now;
    const loaded = yield* Effect.fromResult(
      State.fromStorage({ body: cause.body, storage, handlers: owned, now: loadedAt }),
    );
    const state = State.withHandlers(State.withPurpose(loaded, cause.reason), selected, loadedAt);
    const outcomes = yield* executeHandlersOnce({
      lifecycle: run.lifecycle,
      settings,
      handlers: selected,
      cause,
      state,
      extraContext: context(run.ancestors),
    });
    const now = yield* IsoTime.now;
    const next = yield* Effect.fromResult(State.withOutcomes(state, outcomes, now));
    State.store(next, { body: cause.body, patch: cause.patch, storage });
    Outcome.deliverResults(outcomes, cause.patch);
    for (const id of next.handlers.keys()) {
      for (const collector of run.ancestors) collector.add(id);
    }
    if (!State.isDone(next)) {
      return yield* new HandlerChildrenRetry({
        delay: State.delay(next, now),
        message: "Sub-handlers are not finished yet; the parent handler is retried.",
      });
    }
  });
};

/**
 * The sub-handling context of changing handlers (Kopf's `subhandling_context`), for
 * `Handling.executeHandlersOnce`; `ancestors` are the subrefs collectors of enclosing handlers.
 */
export const context =
  (ancestors: ReadonlyArray<Set<string>> = []): ExtraContext =>
  ({ handler, cause, settings, lifecycle }, services) => {
    if (handler._tag !== "ChangingHandler" || cause._tag !== "ChangingCause") return undefined;
    const subregistry = SubRegistry.make(handler);
    const subrefs = new Set<string>();
    const chain = [...ancestors, subrefs];
    let executedDeclared = false;
    // The declared sub-handlers, run once (after the handler, or by its own `execute()`):
    // `undefined` when nothing is left to run.
    const executeDeclared = () => {
      if (executedDeclared) return undefined;
      executedDeclared = true;
      return executeSubhandlersNow({
        handlers: subregistry.handlers,
        cause,
        settings,
        lifecycle,
        ancestors: chain,
      });
    };
    const execute = (options?: ExecuteOptions): Effect.Effect<void, unknown> =>
      Effect.suspend(() => {
        if (options === undefined || Object.values(options).every((v) => v === undefined)) {
          return executeDeclared() ?? Effect.void;
        }
        return Effect.fromResult(handlersOf(handler, options)).pipe(
          Effect.flatMap((handlers) =>
            executeSubhandlers({ handlers, cause, settings, lifecycle, ancestors: chain }),
          ),
        );
      });
    // A promise-side `execute` runs outside the handler's fiber: stop it with the handler.
    // Made on the first such call only (most handlers never make one).
    let aborted: AbortController | undefined;
    const binding: Binding = {
      handler,
      body: cause.body,
      subregistry,
      execute,
      executePromise: (options) => {
        aborted ??= new AbortController();
        return Effect.runPromiseWith(services)(execute(options), { signal: aborted.signal });
      },
    };
    return {
      fields: { subregistry },
      around: (invocation) =>
        invocation.pipe(
          // Most handlers declare no sub-handler: then no effect is run after them.
          Effect.flatMap((result) => {
            const pending = executeDeclared();
            return pending === undefined ? Effect.succeed(result) : Effect.as(pending, result);
          }),
          Effect.provideService(CurrentBinding, binding),
          // Plain code at its end: no effect, and no step back to the exit, for the others.
          (invoked) =>
            Effect.onExitPrimitive(invoked, (exit) => {
              if (Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)) aborted?.abort();
              return undefined;
            }),
        ),
      subrefs: () => [...subrefs].sort(),
    } satisfies Subcontext;
  };

/**
 * The binding of the running changing handler, for Effect handlers.
 *
 * @example
 * const { subregistry } = yield* Subhandling.current
 */
export const current: Effect.Effect<Binding, SubhandlingError> = Effect.flatMap(
  Effect.service(CurrentBinding),
  (binding: Binding | undefined) =>
    binding === undefined ? Effect.fail(outside("Sub-handlers")) : Effect.succeed(binding),
);

/**
 * Declares a sub-handler of the running handler from an Effect handler (Kopf's
 * `@kopf.subhandler`); the same as `ctx.subregistry.subhandler`.
 *
 * @example
 * yield* Subhandling.subhandler({ id: "task1" }, () => Effect.log("task 1"))
 */
export const subhandler = <F extends HandlerFn<any>>(
  options: Options.SubhandlerOptions<any>,
  fn: F,
): Effect.Effect<F, SubhandlingError | RegistrationError> =>
  Effect.flatMap(current, (binding) =>
    Effect.try({
      try: () => binding.subregistry.subhandler(options, fn),
      catch: (error) => error as RegistrationError,
    }),
  );

/**
 * Declares a function as a sub-handler of the running handler (Kopf's `kopf.register`).
 *
 * @example
 * yield* Subhandling.register(createSingleTask, { id: "task-a" })
 */
export const register = <F extends HandlerFn<any>>(
  fn: F,
  options?: Options.RegisterOptions<any>,
): Effect.Effect<F, SubhandlingError | RegistrationError> =>
  Effect.flatMap(current, (binding) =>
    Effect.try({
      try: () => binding.subregistry.register(fn, options),
      catch: (error) => error as RegistrationError,
    }),
  );

/**
 * Runs sub-handlers now, inside the handler (Kopf's `kopf.execute`): the declared ones, or
 * those given. Fails with `HandlerChildrenRetry` while they are not all done — let it
 * propagate so the parent is retried.
 *
 * @example
 * yield* Subhandling.execute({ fns: { a: stepA, b: stepB } })
 */
export const execute = (options?: ExecuteOptions): Effect.Effect<void, unknown> =>
  Effect.flatMap(current, (binding) => binding.execute(options));

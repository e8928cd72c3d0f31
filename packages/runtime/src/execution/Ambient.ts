/**
 * The ambient binding of a running changing handler (Kopf's context variables `handler_var`,
 * `cause_var`, `subregistry_var`…): what `register`/`subhandler`/`execute` called without a
 * context object attach to. Effect handlers find it in their fiber's context
 * (`CurrentBinding`); plain and async handlers find it through an `AmbientRunner` that wraps
 * the handler's call — the Node one (`src/execution/node/`) keeps it in an
 * `AsyncLocalStorage`, so it follows the handler across `await`s. Without a runner (the
 * default), only `ctx.subregistry` and the Effect accessors work.
 */
import type { ChangingHandler, HandlerFn, SubRegistry } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";

/** How sub-handlers are passed to an explicit `execute` (Kopf's `kopf.execute` arguments). */
export interface ExecuteOptions {
  /** Functions to run as sub-handlers: by id (a record) or ids from their names (an array). */
  readonly fns?: Readonly<Record<string, HandlerFn<any>>> | ReadonlyArray<HandlerFn<any>>;
  /** Already built sub-handlers. */
  readonly handlers?: ReadonlyArray<ChangingHandler>;
  /** A sub-registry (e.g. built by hand with `SubRegistry.make`). */
  readonly registry?: Pick<SubRegistry.SubRegistry, "handlers">;
}

/** The running changing handler, as the ambient calls see it. */
export interface Binding {
  /** The handler being invoked. */
  readonly handler: ChangingHandler;
  /** The body of the object it handles (the default owner of the hierarchies kit, `kopf.adopt`). */
  readonly body: RawBody;
  /** Where its sub-handlers are declared during this invocation. */
  readonly subregistry: SubRegistry.SubRegistry;
  /**
   * Runs sub-handlers now (Kopf's `kopf.execute`): the declared ones by default, or those of
   * `options`. Fails with `HandlerChildrenRetry` while they are not all done.
   */
  readonly execute: (options?: ExecuteOptions) => Effect.Effect<void, unknown>;
  /** The same, as a promise, for plain and async handlers. */
  readonly executePromise: (options?: ExecuteOptions) => Promise<void>;
}

/** Wraps the synchronous call of a handler so that the binding is ambient while it runs. */
export interface AmbientRunner {
  readonly run: <A>(binding: Binding, call: () => A) => A;
  /**
   * Runs the call of a resource handler of any other kind (daemon, timer, on.event, index,
   * webhook) with its object's body ambient: the default owner of the hierarchies kit.
   */
  readonly runObject?: <A>(body: RawBody, call: () => A) => A;
}

/**
 * The runner in use; the default runs the call as it is (no ambient binding for non-Effect
 * code). The Node layer `AmbientHandlers.layer` replaces it.
 */
export const AmbientRunner: Context.Reference<AmbientRunner> = Context.Reference<AmbientRunner>(
  "@kopf/runtime/execution/AmbientRunner",
  { defaultValue: () => ({ run: (_binding, call) => call() }) },
);

/** The binding of the changing handler running in this fiber, if any. */
export const CurrentBinding: Context.Reference<Binding | undefined> = Context.Reference<Binding | undefined>(
  "@kopf/runtime/execution/CurrentBinding",
  { defaultValue: () => undefined },
);

/** The body of the resource handler (of any kind) running in this fiber, if any. */
export const CurrentObject: Context.Reference<RawBody | undefined> = Context.Reference<RawBody | undefined>(
  "@kopf/runtime/execution/CurrentObject",
  { defaultValue: () => undefined },
);

/** The body of the resource handler whose Effect is running right now, if any. */
export const fiberObject = (): RawBody | undefined => Fiber.getCurrent()?.getRef(CurrentObject);

/**
 * The binding of the changing handler whose Effect is running right now (synchronously
 * reachable from code inside an Effect handler's fiber), if any.
 *
 * @example
 * fiberBinding()?.subregistry.register(taskFn, { id: "task" })
 */
export const fiberBinding = (): Binding | undefined => Fiber.getCurrent()?.getRef(CurrentBinding);

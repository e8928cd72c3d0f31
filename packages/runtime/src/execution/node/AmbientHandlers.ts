/**
 * The ambient `register`/`subhandler`/`execute` (Kopf's `kopf.register`, `@kopf.subhandler`
 * and `kopf.execute`), for handlers that do not use their context's `subregistry`: the
 * running changing handler is found in an `AsyncLocalStorage` (it follows plain and async
 * handlers across `await`s) or, inside Effect handlers, in the running fiber.
 *
 * Provide `layer` to the operator so handler calls are wrapped; the facade re-exports the
 * functions. Called outside a changing handler, they throw a `SubhandlingError` naming the
 * problem (as Kopf's decorators raise at once).
 *
 * The same storage keeps the posting calls of the operator running the handler (of any kind),
 * so that `kopf.info()` and friends post through that operator after an `await` too, even with
 * several operators in one process ({@link currentEvents}).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { HandlerFn, Options } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Posting from "../../Posting.ts";
import { AmbientRunner, type Binding, type ExecuteOptions, fiberBinding, fiberObject } from "../Ambient.ts";
import { SubhandlingError } from "../Subhandling.ts";

let storage: AsyncLocalStorage<Binding> | undefined;

const als = (): AsyncLocalStorage<Binding> => {
  storage ??= new AsyncLocalStorage<Binding>();
  return storage;
};

let objectStorage: AsyncLocalStorage<RawBody> | undefined;

const objects = (): AsyncLocalStorage<RawBody> => {
  objectStorage ??= new AsyncLocalStorage<RawBody>();
  return objectStorage;
};

let eventsStorage: AsyncLocalStorage<Posting.Events> | undefined;

const postings = (): AsyncLocalStorage<Posting.Events> => {
  eventsStorage ??= new AsyncLocalStorage<Posting.Events>();
  return eventsStorage;
};

/** The call, run with the posting calls of the operator whose fiber makes it (if any) ambient. */
const withEvents = <A>(call: () => A): A => {
  const events = Fiber.getCurrent()?.getRef(Posting.CurrentEvents);
  return events === undefined ? call() : postings().run(events, call);
};

/**
 * Runs handler calls with their binding (or, for other kinds, their object) and their
 * operator's posting calls in an `AsyncLocalStorage`.
 */
export const runner: AmbientRunner = {
  run: (binding, call) => withEvents(() => als().run(binding, call)),
  runObject: (body, call) => withEvents(() => objects().run(body, call)),
};

/**
 * The posting calls of the operator running the handler this code belongs to (found across
 * `await`s, or in an Effect handler's fiber); `undefined` outside handlers.
 *
 * @example
 * const events = currentEvents() ?? Posting.ambient()
 */
export const currentEvents = (): Posting.Events | undefined =>
  Fiber.getCurrent()?.getRef(Posting.CurrentEvents) ?? postings().getStore();

/**
 * Makes the ambient functions work for plain and async handlers.
 *
 * @example
 * Operator.run(options).pipe(Effect.provide(AmbientHandlers.layer))
 */
export const layer: Layer.Layer<never> = Layer.succeed(AmbientRunner, runner);

/** The binding of the changing handler running here, if any. */
export const current = (): Binding | undefined => als().getStore() ?? fiberBinding();

/**
 * The body of the resource handler running here, of any kind (changing, daemon, timer, on.event,
 * index, webhook): the default owner of the hierarchies kit (`kopf.adopt`).
 *
 * @example
 * const owner = currentBody() // undefined outside resource handlers
 */
export const currentBody = (): RawBody | undefined =>
  current()?.body ?? objects().getStore() ?? fiberObject();

const required = (what: string): Binding => {
  const binding = current();
  if (binding === undefined) {
    throw new SubhandlingError({
      reason: "OutsideHandler",
      message: `${what} can only be used inside a resource-changing handler (sub-handlers are only supported for resource-changing handlers).`,
    });
  }
  return binding;
};

/**
 * Declares a sub-handler of the running changing handler (Kopf's `@kopf.subhandler`).
 *
 * @example
 * async function createFn({ spec }) {
 *   for (const task of spec.tasks) subhandler({ id: `task_${task}` }, async () => runTask(task))
 * }
 */
export function subhandler<F extends HandlerFn<any>>(fn: F): F;
export function subhandler<F extends HandlerFn<any>>(options: Options.SubhandlerOptions<any>, fn: F): F;
export function subhandler(...args: ReadonlyArray<unknown>): unknown {
  const binding = required("kopf.subhandler()");
  return args.length >= 2
    ? binding.subregistry.subhandler(args[0] as Options.SubhandlerOptions<any>, args[1] as HandlerFn<any>)
    : binding.subregistry.subhandler(args[0] as HandlerFn<any>);
}

/**
 * Declares a function as a sub-handler of the running changing handler (Kopf's `kopf.register`).
 *
 * @example
 * function createFn() { register(createPods, { id: "pods" }); register(createServices, { id: "services" }) }
 */
export const register = <F extends HandlerFn<any>>(fn: F, options?: Options.RegisterOptions<any>): F =>
  required("kopf.register()").subregistry.register(fn, options);

/**
 * Runs sub-handlers now, inside the running changing handler (Kopf's `await kopf.execute()`):
 * the declared ones, or those given. Rejects with `HandlerChildrenRetry` while they are not all
 * done — let it propagate so the parent is retried.
 *
 * @example
 * async function createFn() { await execute({ fns: { first: stepOne, second: stepTwo } }) }
 */
export const execute = (options?: ExecuteOptions): Promise<void> => {
  const binding = current();
  if (binding === undefined) {
    return Promise.reject(
      new SubhandlingError({
        reason: "OutsideHandler",
        message: "kopf.execute() can only be used inside a resource-changing handler.",
      }),
    );
  }
  return binding.executePromise(options);
};

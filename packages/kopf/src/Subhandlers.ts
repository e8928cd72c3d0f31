/**
 * `kopf.subhandler`, `kopf.register` and `kopf.execute`: declaring and running sub-handlers of
 * the running changing handler (docs/behaviour/processing.md#sub-handlers). As in Kopf, they find the running handler by
 * themselves (the runtime binds it around every handler call, across `await`s); a sub-registry
 * can also be named explicitly with `{ registry: ctx.subregistry }`. Outside a changing handler
 * and without a sub-registry they throw a `RegistrationError` naming the problem.
 */
import {
  type ChangingContext,
  type ChangingFilterContext,
  type HandlerFn,
  type Options,
  RegistrationError,
  type SubRegistry,
} from "@kopf/registry";
import { type Ambient, AmbientHandlers } from "@kopf/runtime";

/** Where a sub-handler goes, when not the running handler's sub-registry. */
export interface SubRegistryOption {
  readonly registry?: SubRegistry.SubRegistry | undefined;
}

const registryOf = (options: SubRegistryOption | undefined): SubRegistry.SubRegistry => {
  const registry = options?.registry ?? AmbientHandlers.current()?.subregistry;
  if (registry === undefined) {
    throw new RegistrationError({
      reason: "SubhandlerOutsideChanging",
      message:
        "Sub-handlers are only supported for resource-changing handlers: declare them while one runs " +
        "(or pass { registry: ctx.subregistry } from the running handler's context).",
    });
  }
  return registry;
};

/**
 * Declares a sub-handler of the running changing handler; returns `fn` unchanged.
 *
 * @example
 * kopf.on.create("kopfexamples", function createFn({ spec }) {
 *   for (const task of spec.tasks as string[]) {
 *     kopf.subhandler({ id: `task_${task}` }, function createTask() { run(task) })
 *   }
 * })
 */
export const subhandler = <F extends HandlerFn<ChangingContext>>(
  options: Options.SubhandlerOptions<ChangingFilterContext> & SubRegistryOption,
  fn: F,
): F => {
  const { registry, ...rest } = options;
  return registryOf({ registry }).subhandler(rest, fn);
};

/**
 * Registers a function as a sub-handler of the running changing handler; returns `fn`.
 *
 * @example
 * kopf.on.create("kopfexamples", function createFn() {
 *   kopf.register(createPods, { id: "pods" })
 *   kopf.register(createServices, { id: "services" })
 * })
 */
export const register = <F extends HandlerFn<ChangingContext>>(
  fn: F,
  options: Options.RegisterOptions<ChangingFilterContext> & SubRegistryOption = {},
): F => {
  const { registry, ...rest } = options;
  return registryOf({ registry }).register(fn, rest);
};

/**
 * Runs sub-handlers now, inside the running changing handler (Kopf's `await kopf.execute()`);
 * rejects with a retry signal while they are not all done: let it propagate.
 *
 * @example
 * kopf.on.create("kopfexamples", async function createFn() {
 *   await kopf.execute({ fns: { first: stepOne, second: stepTwo } })
 * })
 */
export const execute: (options?: Ambient.ExecuteOptions) => Promise<void> = AmbientHandlers.execute;

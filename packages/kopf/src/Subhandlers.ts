/**
 * `kopf.subhandler` and `kopf.register`: declaring sub-handlers of the running changing handler
 * (Kopf §5.6). In Kopf they find the current handler through a context variable; here the
 * runtime will bind them to the handler being executed. Until that binding exists, they need the
 * handler's sub-registry explicitly: pass `{ registry: ctx.subregistry }` (or call
 * `ctx.subregistry.subhandler(...)` directly).
 */
import {
  type ChangingContext,
  type ChangingFilterContext,
  type HandlerFn,
  type Options,
  RegistrationError,
  type SubRegistry,
} from "@kopf/registry";

/** Where a sub-handler goes: the running handler's sub-registry. */
export interface SubRegistryOption {
  readonly registry: SubRegistry.SubRegistry;
}

const requireRegistry = (options: Partial<SubRegistryOption> | undefined): SubRegistry.SubRegistry => {
  if (options?.registry === undefined) {
    throw new RegistrationError({
      reason: "SubhandlerOutsideChanging",
      message:
        "Sub-handlers are only supported for resource-changing handlers: " +
        "pass { registry: ctx.subregistry } from the running handler's context.",
    });
  }
  return options.registry;
};

/**
 * Declares a sub-handler of the running changing handler; returns `fn` unchanged.
 *
 * @example
 * kopf.on.create("kopfexamples", function createFn({ spec, subregistry }) {
 *   for (const task of spec.tasks as string[]) {
 *     kopf.subhandler({ registry: subregistry, id: `task_${task}` }, function createTask() { run(task) })
 *   }
 * })
 */
export const subhandler = <F extends HandlerFn<ChangingContext>>(
  options: Options.SubhandlerOptions<ChangingFilterContext> & SubRegistryOption,
  fn: F,
): F => {
  const { registry, ...rest } = options as Options.SubhandlerOptions<ChangingFilterContext> &
    Partial<SubRegistryOption>;
  return requireRegistry(options).subhandler(rest, fn);
};

/**
 * Registers a function as a sub-handler of the running changing handler; returns `fn`.
 *
 * @example
 * kopf.register(createSingleTask, { registry: ctx.subregistry, id: "task-a" })
 */
export const register = <F extends HandlerFn<ChangingContext>>(
  fn: F,
  options: Options.RegisterOptions<ChangingFilterContext> & SubRegistryOption,
): F => {
  const { registry, ...rest } = options as Options.RegisterOptions<ChangingFilterContext> &
    Partial<SubRegistryOption>;
  return requireRegistry(options).register(fn, rest);
};

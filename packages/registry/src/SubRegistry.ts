/**
 * Sub-handlers (docs/behaviour/processing.md#sub-handlers): a changing handler may declare child handlers while it runs; the
 * runtime gives each invocation a fresh `SubRegistry`, then executes the collected children with
 * the parent's lifecycle and persists their states under `{parent}/{child}` ids. The parent is
 * re-invoked until all children are done, so it must declare the same children every time.
 *
 * Children are changing handlers without a selector and without a reason; they inherit the
 * parent's `fieldNeedsChange`, and accept `old`/`new` filters only under on.update and on.field
 * parents. Their ids get no field suffix (as in Kopf).
 */
import * as Result from "effect/Result";
import { RegistrationError } from "./Errors.ts";
import type { ChangingHandler, Handler, HandlerFn } from "./Handler.ts";
import type { ChangingContext, ChangingFilterContext } from "./HandlerContext.ts";
import * as build from "./internal/build.ts";
import type { RegisterOptions, SubhandlerOptions } from "./Options.ts";

/** The sub-handlers declared during one invocation of a parent handler. */
export interface SubRegistry {
  /** The handler being executed. */
  readonly parent: Handler;
  /** The children declared so far, in declaration order. */
  readonly handlers: ReadonlyArray<ChangingHandler>;
  /**
   * Declares a sub-handler (Kopf's `@kopf.subhandler`); returns `fn` unchanged.
   * Throws `RegistrationError` when the parent is not a changing handler or options are invalid.
   *
   * @example
   * const createFn = ({ spec, subregistry }: ChangingContext) => {
   *   for (const task of spec.tasks as string[]) {
   *     subregistry.subhandler({ id: `task_${task}` }, () => runTask(task))
   *   }
   * }
   */
  subhandler<F extends HandlerFn<ChangingContext>>(fn: F): F;
  subhandler<F extends HandlerFn<ChangingContext>>(
    options: SubhandlerOptions<ChangingFilterContext>,
    fn: F,
  ): F;
  /**
   * Declares a sub-handler from a function (Kopf's `kopf.register(fn, ...)`); returns `fn`.
   *
   * @example
   * subregistry.register(createSingleTask, { id: "task-a" })
   */
  register<F extends HandlerFn<ChangingContext>>(fn: F, options?: RegisterOptions<ChangingFilterContext>): F;
}

const parentAllowsOldNew = (parent: ChangingHandler): boolean =>
  parent.reason === "update" || (parent.reason === undefined && !parent.initial);

/**
 * Builds the sub-handler of `parent` from `fn` and options, as a value.
 *
 * @example
 * makeSubhandler(parent, taskFn, { id: "task1" }) // Result.succeed({ id: "create_fn/task1", ... })
 */
export const makeSubhandler = (
  parent: Handler,
  fn: Function,
  options: Readonly<Record<string, unknown>>,
  call: "subhandler" | "register" = "subhandler",
): Result.Result<ChangingHandler, RegistrationError> => {
  if (parent._tag !== "ChangingHandler") {
    return Result.fail(
      new RegistrationError({
        reason: "SubhandlerOutsideChanging",
        message: "Sub-handlers are only supported for resource-changing handlers.",
      }),
    );
  }
  const hasOldNew =
    (options.old !== undefined && options.old !== null) ||
    (options.new !== undefined && options.new !== null);
  if (hasOldNew && !parentAllowsOldNew(parent)) {
    return Result.fail(
      new RegistrationError({
        reason: "OldNewOutsideUpdate",
        message: "Filters old=/new= can only be used in update handlers.",
      }),
    );
  }
  return build.changing(undefined, fn, options, {
    call,
    allowed: build.ALLOWED[call],
    fieldSuffix: false,
    prefix: parent.id,
    reason: undefined,
    initial: false,
    deleted: false,
    requiresFinalizer: false,
    fieldNeedsChange: parent.fieldNeedsChange,
  });
};

/**
 * A fresh sub-registry for one invocation of `parent`.
 *
 * @example
 * const sub = make(parentHandler)
 * sub.register(taskFn, { id: "task1" })
 * sub.handlers.map((h) => h.id) // ["create_fn/task1"]
 */
export const make = (parent: Handler): SubRegistry => new Declared(parent);

// A class rather than an object literal with a getter, which V8 builds on a slow path: one is
// made for every invocation of every changing handler. The methods are fields, so they can be
// taken off the object (`const { subhandler } = subregistry`) as the literal's could.
class Declared {
  readonly #declared: Array<ChangingHandler> = [];
  readonly parent: Handler;

  constructor(parent: Handler) {
    this.parent = parent;
  }

  get handlers(): ReadonlyArray<ChangingHandler> {
    return [...this.#declared];
  }

  readonly #add = (
    fn: Function,
    options: Readonly<Record<string, unknown>>,
    call: "subhandler" | "register",
  ) => {
    const result = makeSubhandler(this.parent, fn, options, call);
    if (Result.isFailure(result)) throw result.failure;
    this.#declared.push(result.success);
  };

  readonly subhandler = ((...args: ReadonlyArray<unknown>) => {
    const [options, fn] = args.length >= 2 ? [args[0], args[1]] : [{}, args[0]];
    this.#add(fn as Function, (options ?? {}) as Readonly<Record<string, unknown>>, "subhandler");
    return fn as never;
  }) as SubRegistry["subhandler"];

  readonly register = ((fn: Function, options?: Readonly<Record<string, unknown>>) => {
    this.#add(fn, options ?? {}, "register");
    return fn as never;
  }) as SubRegistry["register"];
}

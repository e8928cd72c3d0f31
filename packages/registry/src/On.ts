/**
 * The registration calls for every kind of handler (Kopf's `kopf.on.*`, docs/behaviour/registration.md#handler-kinds): each validates
 * its options, builds a handler value, appends it to a registry and returns the handler function
 * unchanged. Two call shapes: `on.create(resource, handler)` and `on.create(resource, options,
 * handler)`; activities take no resource (`on.startup(handler)`, `on.startup(options, handler)`).
 *
 * Registration mistakes throw `RegistrationError` (the one place where this library throws, as
 * Kopf's decorators raise at import time), so a misconfigured operator fails at startup.
 */
import type { Body, Selector } from "@kopf/structs";
import * as Result from "effect/Result";
import { RegistrationError } from "./Errors.ts";
import type { Handler, HandlerFn } from "./Handler.ts";
import type {
  Activity,
  ActivityContext,
  ChangingContext,
  ChangingFilterContext,
  DaemonContext,
  IndexingContext,
  IndexingFilterContext,
  SpawningFilterContext,
  TimerContext,
  WatchingContext,
  WatchingFilterContext,
  WebhookContext,
  WebhookFilterContext,
} from "./HandlerContext.ts";
import * as build from "./internal/build.ts";
import type {
  ActivityOptions,
  CreateOptions,
  DaemonOptions,
  DeleteOptions,
  EventOptions,
  FieldOptions,
  IndexOptions,
  ResumeOptions,
  TimerOptions,
  UpdateOptions,
  WebhookOptions,
} from "./Options.ts";
import type { ResourceSpec } from "./ResourceSpec.ts";
import * as TypedHandlers from "./TypedHandlers.ts";

/** The handler contexts by kind, for a body type `B`. */
export interface ContextsOf<B> {
  readonly changing: ChangingContext<B>;
  readonly watching: WatchingContext<B>;
  readonly indexing: IndexingContext<B>;
  readonly daemon: DaemonContext<B>;
  readonly timer: TimerContext<B>;
  readonly webhook: WebhookContext<B>;
}

/**
 * The option of handlers of typed resources (`kopf.resource`): `decode: false` skips decoding
 * the body (the handler then trusts the API server's validation of the stored object).
 */
export interface DecodeOption {
  readonly decode?: boolean;
}

/** The options of each registration call, for a body type `B`. */
export interface OptionsOf<B> {
  readonly resume: ResumeOptions<ChangingFilterContext<B>> & DecodeOption;
  readonly create: CreateOptions<ChangingFilterContext<B>> & DecodeOption;
  readonly update: UpdateOptions<ChangingFilterContext<B>> & DecodeOption;
  readonly delete: DeleteOptions<ChangingFilterContext<B>> & DecodeOption;
  readonly field: FieldOptions<ChangingFilterContext<B>> & DecodeOption;
  readonly event: EventOptions<WatchingFilterContext<B>> & DecodeOption;
  readonly index: IndexOptions<IndexingFilterContext<B>> & DecodeOption;
  readonly daemon: DaemonOptions<SpawningFilterContext<B>, B> & DecodeOption;
  readonly timer: TimerOptions<SpawningFilterContext<B>, B> & DecodeOption;
  readonly webhook: WebhookOptions<WebhookFilterContext<B>> & DecodeOption;
}

/**
 * A resource-level registration call. The body type `B` is inferred from a model-class resource
 * or from the handler's annotated context; it defaults to `RawBody`.
 */
export interface ResourceRegistration<
  K extends keyof OptionsOf<unknown>,
  X extends keyof ContextsOf<unknown>,
> {
  <B extends object = Body.RawBody, F extends HandlerFn<ContextsOf<B>[X]> = HandlerFn<ContextsOf<B>[X]>>(
    resource: ResourceSpec<B>,
    handler: F & HandlerFn<ContextsOf<B>[X]>,
  ): F;
  <B extends object = Body.RawBody, F extends HandlerFn<ContextsOf<B>[X]> = HandlerFn<ContextsOf<B>[X]>>(
    resource: ResourceSpec<B>,
    options: OptionsOf<B>[K],
    handler: F & HandlerFn<ContextsOf<B>[X]>,
  ): F;
}

/** `on.field`: the options (with `field`) are mandatory. */
export type FieldRegistration = <B extends object = Body.RawBody>(
  resource: ResourceSpec<B>,
  options: OptionsOf<B>["field"],
  handler: HandlerFn<ChangingContext<B>>,
) => HandlerFn<ChangingContext<B>>;

/** An operator-level registration call; `S` is the settings type activities receive. */
export interface ActivityRegistration<S> {
  (handler: HandlerFn<ActivityContext<S>>): HandlerFn<ActivityContext<S>>;
  (options: ActivityOptions, handler: HandlerFn<ActivityContext<S>>): HandlerFn<ActivityContext<S>>;
}

/**
 * The registration calls. `S` is the type of `settings` in activities; `M` its type in startup
 * handlers, which may change the settings as in Kopf (the facade passes `OperatorSettings` and
 * `Settings.MutableSettings`; the runtime validates the changed tree after startup).
 *
 * @example
 * registry.on.create("kopfexamples.kopf.dev", function createFn({ spec, logger }) {
 *   logger.info(`Creating with ${JSON.stringify(spec)}`)
 *   return { message: "created" }
 * })
 * registry.on.update("kopfexamples", { field: "spec.size", id: "resize" }, ({ old, new: size }) => resize(old, size))
 */
export interface On<S = unknown, M = S> {
  readonly startup: ActivityRegistration<M>;
  readonly cleanup: ActivityRegistration<S>;
  /** Registers an `authentication` activity. */
  readonly login: ActivityRegistration<S>;
  readonly probe: ActivityRegistration<S>;
  readonly resume: ResourceRegistration<"resume", "changing">;
  readonly create: ResourceRegistration<"create", "changing">;
  readonly update: ResourceRegistration<"update", "changing">;
  readonly delete: ResourceRegistration<"delete", "changing">;
  readonly field: FieldRegistration;
  readonly event: ResourceRegistration<"event", "watching">;
  readonly index: ResourceRegistration<"index", "indexing">;
  readonly daemon: ResourceRegistration<"daemon", "daemon">;
  readonly timer: ResourceRegistration<"timer", "timer">;
  readonly validate: ResourceRegistration<"webhook", "webhook">;
  readonly mutate: ResourceRegistration<"webhook", "webhook">;
}

/** Where registrations go, and how resources are turned into selectors. */
export interface OnTarget {
  readonly append: (handler: Handler) => void;
  readonly selector: (resource: unknown) => Result.Result<Selector.Selector, RegistrationError>;
  /** Told about each body of a typed resource that does not decode (e.g. to post an event). */
  readonly onUndecodable?: ((body: unknown, message: string) => void) | undefined;
}

type Options = Readonly<Record<string, unknown>>;

const orThrow = <A>(result: Result.Result<A, RegistrationError>): A => {
  if (Result.isFailure(result)) throw result.failure;
  return result.success;
};

const checkFn = (call: string, fn: unknown): Result.Result<Function, RegistrationError> =>
  typeof fn === "function"
    ? Result.succeed(fn)
    : Result.fail(
        new RegistrationError({
          reason: "InvalidOption",
          message: `${call}: the handler must be a function.`,
        }),
      );

const checkOptions = (call: string, options: unknown): Result.Result<Options, RegistrationError> =>
  typeof options === "object" && options !== null && !Array.isArray(options)
    ? Result.succeed(options as Options)
    : Result.fail(
        new RegistrationError({
          reason: "InvalidOption",
          message: `${call}: the options must be an object.`,
        }),
      );

/** Splits `(handler)` / `(options, handler)` after the leading arguments. */
const split = (call: string, rest: ReadonlyArray<unknown>) =>
  Result.gen(function* () {
    const [options, fn] = rest.length >= 2 ? [rest[0], rest[1]] : [{}, rest[0]];
    return { options: yield* checkOptions(call, options), fn: yield* checkFn(call, fn) };
  });

const activityCall =
  (target: OnTarget, activity: Activity, call: string) =>
  (...args: ReadonlyArray<unknown>) => {
    const { options, fn } = orThrow(split(call, args));
    target.append(orThrow(build.activity(fn, options, activity, call)));
    return fn;
  };

const resourceCall =
  (
    target: OnTarget,
    call: string,
    make: (
      selector: Selector.Selector,
      fn: Function,
      options: Options,
    ) => Result.Result<Handler, RegistrationError>,
  ) =>
  (resource: unknown, ...rest: ReadonlyArray<unknown>) => {
    const { options: given, fn } = orThrow(split(call, rest));
    const { decode, ...options } = given;
    const selector = orThrow(target.selector(resource));
    const served = TypedHandlers.isServed(resource) ? resource : undefined;
    if (decode !== undefined && (served === undefined || typeof decode !== "boolean"))
      throw new RegistrationError({
        reason: "InvalidOption",
        message: `${call}: decode is a boolean option of typed resources (kopf.resource) only.`,
      });
    const handlerFn =
      served === undefined || decode === false
        ? fn
        : TypedHandlers.decoding(served, fn, call === "on.daemon", target.onUndecodable);
    target.append(orThrow(make(selector, handlerFn, options)));
    return fn;
  };

const changingCall = (
  target: OnTarget,
  call: "resume" | "create" | "update" | "delete" | "field",
  flags: (options: Options) => Omit<build.ChangingShape, "call" | "allowed">,
) =>
  resourceCall(target, `on.${call}`, (selector, fn, options) =>
    build.changing(selector, fn, options, {
      call: `on.${call}`,
      allowed: build.ALLOWED[call],
      ...flags(options),
    }),
  );

const NO_FLAGS = { initial: false, deleted: false, requiresFinalizer: false } as const;

/**
 * The registration calls appending to `target`.
 *
 * @example
 * const handlers: Handler[] = []
 * const on = make({ append: (h) => handlers.push(h), selector: ResourceSpec.toSelector })
 */
export const make = <S = unknown, M = S>(target: OnTarget): On<S, M> =>
  ({
    startup: activityCall(target, "startup", "on.startup"),
    cleanup: activityCall(target, "cleanup", "on.cleanup"),
    login: activityCall(target, "authentication", "on.login"),
    probe: activityCall(target, "probe", "on.probe"),
    resume: changingCall(target, "resume", (o) => ({
      ...NO_FLAGS,
      fieldSuffix: true,
      reason: undefined,
      initial: true,
      deleted: o.deleted === true,
      fieldNeedsChange: false,
    })),
    create: changingCall(target, "create", () => ({
      ...NO_FLAGS,
      fieldSuffix: true,
      reason: "create",
      fieldNeedsChange: false,
    })),
    update: changingCall(target, "update", () => ({
      ...NO_FLAGS,
      fieldSuffix: true,
      reason: "update",
      fieldNeedsChange: true,
    })),
    delete: changingCall(target, "delete", (o) => ({
      ...NO_FLAGS,
      fieldSuffix: true,
      reason: "delete",
      requiresFinalizer: o.optional !== true,
      fieldNeedsChange: false,
    })),
    field: resourceCall(target, "on.field", (selector, fn, options) =>
      options.field === undefined ||
      options.field === "" ||
      (Array.isArray(options.field) && options.field.length === 0)
        ? Result.fail(
            new RegistrationError({
              reason: "MissingField",
              message: "on.field requires a non-empty field option.",
            }),
          )
        : build.changing(selector, fn, options, {
            ...NO_FLAGS,
            call: "on.field",
            allowed: build.ALLOWED.field,
            fieldSuffix: true,
            reason: undefined,
            fieldNeedsChange: true,
          }),
    ),
    event: resourceCall(target, "on.event", build.watching),
    index: resourceCall(target, "on.index", build.indexing),
    daemon: resourceCall(target, "on.daemon", build.daemon),
    timer: resourceCall(target, "on.timer", build.timer),
    validate: resourceCall(target, "on.validate", (s, fn, o) => build.webhook(s, fn, o, "validating")),
    mutate: resourceCall(target, "on.mutate", (s, fn, o) => build.webhook(s, fn, o, "mutating")),
  }) as unknown as On<S, M>;

/**
 * Builds validated handler values from registration options, one builder per kind of handler;
 * shared by `On` (top-level registrations) and `SubRegistry` (sub-handlers).
 */
import type { Selector } from "@kopf/structs";
import * as Result from "effect/Result";
import { RegistrationError } from "../Errors.ts";
import type {
  ActivityHandler,
  Behaviour,
  ChangingHandler,
  DaemonHandler,
  HandlerFn,
  IndexingHandler,
  InitialDelay,
  ResourceFilters,
  TimerHandler,
  WatchingHandler,
  WebhookHandler,
} from "../Handler.ts";
import type { Activity, Reason, WebhookType } from "../HandlerContext.ts";
import * as HandlerId from "../HandlerId.ts";
import * as Options from "../Options.ts";

/** Loosely typed options as received from a registration call. */
export type RawOptions = Readonly<Record<string, unknown>>;

const ID = ["id", "param"];
const BEHAVIOUR = [...ID, "errors", "timeout", "retries", "backoff"];
const FILTERS = ["labels", "annotations", "when", "field", "value"];

/** The options each registration call accepts (others are rejected, catching typos). */
export const ALLOWED = {
  activity: BEHAVIOUR,
  create: [...BEHAVIOUR, ...FILTERS],
  resume: [...BEHAVIOUR, ...FILTERS, "deleted"],
  update: [...BEHAVIOUR, ...FILTERS, "old", "new"],
  delete: [...BEHAVIOUR, ...FILTERS, "optional"],
  field: [...BEHAVIOUR, ...FILTERS, "old", "new"],
  event: [...ID, ...FILTERS],
  index: [...BEHAVIOUR, ...FILTERS],
  daemon: [
    ...BEHAVIOUR,
    ...FILTERS,
    "initialDelay",
    "cancellationBackoff",
    "cancellationTimeout",
    "cancellationPolling",
  ],
  timer: [...BEHAVIOUR, ...FILTERS, "interval", "initialDelay", "sharp", "idle"],
  webhook: [
    ...ID,
    ...FILTERS,
    "operation",
    "operations",
    "subresource",
    "persistent",
    "sideEffects",
    "ignoreFailures",
  ],
  subhandler: [...BEHAVIOUR, ...FILTERS, "old", "new"],
  register: [...BEHAVIOUR, "labels", "annotations", "when"],
} as const satisfies Readonly<Record<string, ReadonlyArray<string>>>;

const fail = (reason: RegistrationError["reason"], message: string) =>
  Result.fail(new RegistrationError({ reason, message }));

/** Rejects options that the call does not accept. */
export const checkKeys = (call: string, allowed: ReadonlyArray<string>, options: RawOptions) => {
  const unknown = Object.keys(options).filter((key) => !allowed.includes(key) && options[key] !== undefined);
  if (unknown.length > 0) {
    return fail(
      "InvalidOption",
      `${call}: unknown option ${unknown.map((k) => JSON.stringify(k)).join(", ")}; accepted: ${allowed.join(", ")}.`,
    );
  }
  return Result.void;
};

const behaviourOf = (id: string, options: RawOptions): Behaviour => ({
  id,
  param: options.param,
  errors: options.errors as Behaviour["errors"],
  timeout: options.timeout as number | undefined,
  retries: options.retries as number | undefined,
  backoff: options.backoff as number | undefined,
});

/** What the id and filters of a resource handler are made of. */
interface Shape {
  readonly call: string;
  readonly allowed: ReadonlyArray<string>;
  /** Whether a field suffix is appended to the id (all but index handlers). */
  readonly fieldSuffix: boolean;
  /** The parent handler's id (sub-handlers). */
  readonly prefix?: string;
}

/** Validates and builds the behaviour and filters shared by resource handlers. */
const resourceBase = (
  selector: Selector.Selector | undefined,
  fn: Function,
  options: RawOptions,
  shape: Shape,
): Result.Result<Behaviour & ResourceFilters<any>, RegistrationError> =>
  Result.gen(function* () {
    yield* checkKeys(shape.call, shape.allowed, options);
    yield* Options.checkBehaviour(options);
    yield* Options.checkMetaFilters(options);
    yield* Options.checkValueFilters(options);
    const field = yield* Options.parseField(options.field as never);
    const id = yield* HandlerId.make({
      fn,
      id: options.id as string | undefined,
      field: shape.fieldSuffix ? field : undefined,
      prefix: shape.prefix,
    });
    return {
      ...behaviourOf(id, options),
      selector,
      labels: options.labels as ResourceFilters<any>["labels"],
      annotations: options.annotations as ResourceFilters<any>["annotations"],
      when: options.when as ResourceFilters<any>["when"],
      field,
      value: (options.value ?? undefined) as ResourceFilters<any>["value"],
    };
  });

/** Builds an activity handler. */
export const activity = (fn: Function, options: RawOptions, kind: Activity, call: string) =>
  Result.gen(function* () {
    yield* checkKeys(call, ALLOWED.activity, options);
    yield* Options.checkBehaviour(options);
    const id = yield* HandlerId.make({ fn, id: options.id as string | undefined });
    const handler: ActivityHandler = {
      _tag: "ActivityHandler",
      ...behaviourOf(id, options),
      fn: fn as HandlerFn<any>,
      activity: kind,
      fallback: false,
    };
    return handler;
  });

/** The kind-specific flags of a changing handler. */
export interface ChangingShape extends Shape {
  readonly reason: Reason | undefined;
  readonly initial: boolean;
  readonly deleted: boolean;
  readonly requiresFinalizer: boolean;
  readonly fieldNeedsChange: boolean;
}

/** Builds a changing handler (also sub-handlers, with `selector` undefined). */
export const changing = (
  selector: Selector.Selector | undefined,
  fn: Function,
  options: RawOptions,
  shape: ChangingShape,
): Result.Result<ChangingHandler, RegistrationError> =>
  Result.map(resourceBase(selector, fn, options, shape), (base) => ({
    _tag: "ChangingHandler" as const,
    ...base,
    fn: fn as HandlerFn<any>,
    reason: shape.reason,
    initial: shape.initial,
    deleted: shape.deleted,
    requiresFinalizer: shape.requiresFinalizer,
    fieldNeedsChange: shape.fieldNeedsChange,
    old: (options.old ?? undefined) as ChangingHandler["old"],
    new: (options.new ?? undefined) as ChangingHandler["new"],
  }));

/** Builds an `on.event` handler (no retry behaviour). */
export const watching = (selector: Selector.Selector, fn: Function, options: RawOptions) =>
  Result.map(
    resourceBase(selector, fn, options, {
      call: "on.event",
      allowed: ALLOWED.event,
      fieldSuffix: true,
    }),
    (base): WatchingHandler => ({ _tag: "WatchingHandler", ...base, fn: fn as HandlerFn<any> }),
  );

/** Builds an index handler: its id has no field suffix (Kopf HEAD quirk, kept). */
export const indexing = (selector: Selector.Selector, fn: Function, options: RawOptions) =>
  Result.map(
    resourceBase(selector, fn, options, {
      call: "on.index",
      allowed: ALLOWED.index,
      fieldSuffix: false,
    }),
    (base): IndexingHandler => ({ _tag: "IndexingHandler", ...base, fn: fn as HandlerFn<any> }),
  );

/** Builds a daemon. */
export const daemon = (selector: Selector.Selector, fn: Function, options: RawOptions) =>
  Result.map(
    resourceBase(selector, fn, options, {
      call: "on.daemon",
      allowed: ALLOWED.daemon,
      fieldSuffix: true,
    }),
    (base): DaemonHandler => ({
      _tag: "DaemonHandler",
      ...base,
      fn: fn as HandlerFn<any>,
      requiresFinalizer: true,
      initialDelay: options.initialDelay as InitialDelay | undefined,
      cancellationBackoff: options.cancellationBackoff as number | undefined,
      cancellationTimeout: options.cancellationTimeout as number | undefined,
      cancellationPolling: options.cancellationPolling as number | undefined,
    }),
  );

/** Builds a timer. */
export const timer = (selector: Selector.Selector, fn: Function, options: RawOptions) =>
  Result.map(
    resourceBase(selector, fn, options, {
      call: "on.timer",
      allowed: ALLOWED.timer,
      fieldSuffix: true,
    }),
    (base): TimerHandler => ({
      _tag: "TimerHandler",
      ...base,
      fn: fn as HandlerFn<any>,
      requiresFinalizer: true,
      interval: options.interval as number | undefined,
      initialDelay: options.initialDelay as InitialDelay | undefined,
      sharp: options.sharp as boolean | undefined,
      idle: options.idle as number | undefined,
    }),
  );

/** Builds a webhook handler; retry behaviour does not apply to admission (forced unset). */
export const webhook = (
  selector: Selector.Selector,
  fn: Function,
  options: RawOptions,
  reason: WebhookType,
) =>
  Result.gen(function* () {
    const call = reason === "validating" ? "on.validate" : "on.mutate";
    const base = yield* resourceBase(selector, fn, options, {
      call,
      allowed: ALLOWED.webhook,
      fieldSuffix: true,
    });
    const operations = yield* Options.parseOperations(options as Options.WebhookOptions<unknown>);
    const handler: WebhookHandler = {
      _tag: "WebhookHandler",
      ...base,
      errors: undefined,
      timeout: undefined,
      retries: undefined,
      backoff: undefined,
      fn: fn as HandlerFn<any>,
      reason,
      operations,
      subresource: options.subresource as string | undefined,
      persistent: options.persistent as boolean | undefined,
      sideEffects: options.sideEffects as boolean | undefined,
      ignoreFailures: options.ignoreFailures as boolean | undefined,
    };
    return handler;
  });

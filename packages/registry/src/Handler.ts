/**
 * Handler values: what a registration stores for each kind of handler (Kopf's handler classes),
 * with every option of docs/behaviour/registration.md#options. Options not given are `undefined` ("null" in Kopf); the
 * effective defaults that depend on settings (backoff, cancellation polling) are applied by the
 * runtime, and those that depend only on the kind are given by `effectiveErrors`.
 *
 * Durations (`timeout`, `backoff`, `interval`, `idle`, `initialDelay`, `cancellation*`) are in
 * seconds, as in Kopf and in the settings.
 */
import type { FieldPath, Selector } from "@kopf/structs";
import type { ErrorsMode } from "./Errors.ts";
import type { MetaFilter, ValueFilter, WhenFilterFn } from "./Filters.ts";
import type {
  Activity,
  ActivityContext,
  AnyFilterContext,
  ChangingContext,
  ChangingFilterContext,
  DaemonContext,
  DelayContext,
  HandlerReturn,
  IndexingContext,
  IndexingFilterContext,
  Operation,
  Reason,
  SpawningFilterContext,
  TimerContext,
  WatchingContext,
  WatchingFilterContext,
  WebhookContext,
  WebhookFilterContext,
  WebhookType,
} from "./HandlerContext.ts";
import type { HandlerId } from "./HandlerId.ts";

/**
 * A handler function taking its context: sync, async (Promise) or returning an `Effect` (with no
 * requirements). Declared as a method type so that a handler annotated with a context that also
 * names indices (`ChangingContext<B, { byName: Index }>`) is accepted.
 */
export type HandlerFn<C> = { bivarianceHack(ctx: C): HandlerReturn }["bivarianceHack"];

/** The behaviour options shared by all handlers. */
export interface Behaviour {
  readonly id: HandlerId;
  readonly param: unknown;
  readonly errors: ErrorsMode | undefined;
  /** Seconds since the first attempt after which the handler fails for good. */
  readonly timeout: number | undefined;
  /** Attempts after which the handler fails for good. */
  readonly retries: number | undefined;
  /** Seconds between retries after arbitrary errors (default: settings' default backoff). */
  readonly backoff: number | undefined;
}

/** An operator-level handler (`on.startup`, `on.cleanup`, `on.login`, `on.probe`). */
export interface ActivityHandler extends Behaviour {
  readonly _tag: "ActivityHandler";
  readonly fn: HandlerFn<ActivityContext<any, any>>;
  readonly activity: Activity;
  /** Used only when no regular handler exists for the activity (built-in login fallbacks). */
  readonly fallback: boolean;
}

/** The filters of every resource handler (checked by `Matching`). */
export interface ResourceFilters<C> {
  /** Which resources; `undefined` only for sub-handlers (they inherit their parent's). */
  readonly selector: Selector.Selector | undefined;
  readonly labels: MetaFilter<C> | undefined;
  readonly annotations: MetaFilter<C> | undefined;
  readonly when: WhenFilterFn<C> | undefined;
  readonly field: FieldPath.FieldPath | undefined;
  readonly value: ValueFilter<C> | undefined;
}

/** A changing handler (`on.resume/create/update/delete/field`, sub-handlers). */
export interface ChangingHandler extends Behaviour, ResourceFilters<ChangingFilterContext<any>> {
  readonly _tag: "ChangingHandler";
  readonly fn: HandlerFn<ChangingContext<any, any>>;
  /** The reason it fires on; `undefined` for on.resume, on.field and sub-handlers. */
  readonly reason: Reason | undefined;
  /** Resume handler: mixed into causes of objects first seen at startup. */
  readonly initial: boolean;
  /** Resume handler that also runs for objects being deleted. */
  readonly deleted: boolean;
  readonly requiresFinalizer: boolean;
  /** The field must differ between old and new (on.update with a field, on.field). */
  readonly fieldNeedsChange: boolean;
  readonly old: ValueFilter<ChangingFilterContext<any>> | undefined;
  readonly new: ValueFilter<ChangingFilterContext<any>> | undefined;
}

/** An `on.event` handler. */
export interface WatchingHandler extends Behaviour, ResourceFilters<WatchingFilterContext<any>> {
  readonly _tag: "WatchingHandler";
  readonly fn: HandlerFn<WatchingContext<any, any>>;
}

/** An index handler (`index`, `on.index`). */
export interface IndexingHandler extends Behaviour, ResourceFilters<IndexingFilterContext<any>> {
  readonly _tag: "IndexingHandler";
  readonly fn: HandlerFn<IndexingContext<any, any>>;
}

/** `initialDelay`: seconds, or a callback computing them for an object. */
export type InitialDelay = number | ((ctx: DelayContext<any>) => number);

/** The options shared by daemons and timers. */
export interface SpawningOptions extends Behaviour, ResourceFilters<SpawningFilterContext<any>> {
  readonly requiresFinalizer: boolean;
  readonly initialDelay: InitialDelay | undefined;
}

/** A daemon (`daemon`, `on.daemon`). */
export interface DaemonHandler extends SpawningOptions {
  readonly _tag: "DaemonHandler";
  readonly fn: HandlerFn<DaemonContext<any, any>>;
  /** Seconds to wait after the stop request before cancelling the daemon. */
  readonly cancellationBackoff: number | undefined;
  /** Seconds to wait for the cancellation before abandoning the daemon. */
  readonly cancellationTimeout: number | undefined;
  /** Seconds between checks whether the daemon has exited. */
  readonly cancellationPolling: number | undefined;
}

/** A timer (`timer`, `on.timer`). */
export interface TimerHandler extends SpawningOptions {
  readonly _tag: "TimerHandler";
  readonly fn: HandlerFn<TimerContext<any, any>>;
  readonly interval: number | undefined;
  /** Count intervals from the start of the previous run rather than from its end. */
  readonly sharp: boolean | undefined;
  /** Seconds the object must stay unchanged before the timer runs. */
  readonly idle: number | undefined;
}

/** A daemon or a timer. */
export type SpawningHandler = DaemonHandler | TimerHandler;

/** An admission webhook handler (`on.validate`, `on.mutate`). */
export interface WebhookHandler extends Behaviour, ResourceFilters<WebhookFilterContext<any>> {
  readonly _tag: "WebhookHandler";
  readonly fn: HandlerFn<WebhookContext<any, any>>;
  readonly reason: WebhookType;
  /** `undefined` means all operations. */
  readonly operations: ReadonlySet<Operation> | undefined;
  /** `"*"` means any; `undefined` only the main body. */
  readonly subresource: string | undefined;
  readonly persistent: boolean | undefined;
  readonly sideEffects: boolean | undefined;
  readonly ignoreFailures: boolean | undefined;
}

/** Any resource-level handler. */
export type ResourceHandler =
  | ChangingHandler
  | WatchingHandler
  | IndexingHandler
  | SpawningHandler
  | WebhookHandler;

/** Any handler. */
export type Handler = ActivityHandler | ResourceHandler;

/** The filters of any resource handler, seen uniformly by the matching. */
export type AnyResourceFilters = ResourceFilters<AnyFilterContext<any>>;

/**
 * The errors mode in effect: the handler's own, else the kind's default (temporary for
 * changing handlers, daemons, timers and activities; ignored for on.event and indexers;
 * permanent for webhooks).
 *
 * @example
 * effectiveErrors(indexHandler) // "ignored" unless { errors } was given
 */
export const effectiveErrors = (handler: Handler): ErrorsMode => {
  if (handler.errors !== undefined) return handler.errors;
  switch (handler._tag) {
    case "WatchingHandler":
    case "IndexingHandler":
      return "ignored";
    case "WebhookHandler":
      return "permanent";
    default:
      return "temporary";
  }
};

const TITLES: Readonly<Record<Handler["_tag"], string>> = {
  ActivityHandler: "Activity",
  ChangingHandler: "Handler",
  WatchingHandler: "Handler",
  IndexingHandler: "Indexer",
  DaemonHandler: "Daemon",
  TimerHandler: "Timer",
  WebhookHandler: "Webhook",
};

/**
 * The handler as named in log lines: `Handler 'id'`, `Activity 'id'`, `Daemon 'id'`,
 * `Timer 'id'`, `Indexer 'id'` or `Webhook 'id'`.
 *
 * @example
 * describe(createHandler) // "Handler 'create_fn'"
 */
export const describe = (handler: Handler): string => `${TITLES[handler._tag]} '${handler.id}'`;

/**
 * Public API of @kopf/registry: the handler API (handler values, registration calls, explicit
 * registries, filters, ids, errors, lifecycles) and the pure matching of handlers to causes.
 */

export * as Errors from "./Errors.ts";
export {
  AdmissionError,
  ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  RegistrationError,
  type RegistrationErrorReason,
  TemporaryError,
} from "./Errors.ts";
export * as Filters from "./Filters.ts";
export {
  ABSENT,
  all_,
  any_,
  type MetaFilter,
  none_,
  not_,
  PRESENT,
  type ValueFilter,
  type WhenFilterFn,
} from "./Filters.ts";
export type {
  ActivityHandler,
  ChangingHandler,
  DaemonHandler,
  Handler as AnyHandler,
  HandlerFn,
  IndexingHandler,
  ResourceHandler,
  SpawningHandler,
  TimerHandler,
  WatchingHandler,
  WebhookHandler,
} from "./Handler.ts";
export * as Handler from "./Handler.ts";
export * as HandlerCause from "./HandlerCause.ts";
export type {
  Activity,
  ActivityContext,
  ChangingContext,
  ChangingFilterContext,
  DaemonContext,
  DaemonStopped,
  DaemonStoppingReason,
  DelayContext,
  Index,
  IndexingContext,
  IndexingFilterContext,
  Logger,
  Memo,
  Operation,
  SpawningFilterContext,
  Store,
  TimerContext,
  WatchingContext,
  WatchingFilterContext,
  WebhookContext,
  WebhookFilterContext,
  WebhookType,
} from "./HandlerContext.ts";
export * as HandlerContext from "./HandlerContext.ts";
export { Reason } from "./HandlerContext.ts";
export * as HandlerId from "./HandlerId.ts";
export type { Lifecycle, LifecycleContext } from "./Lifecycles.ts";
export * as Lifecycles from "./Lifecycles.ts";
export * as Matching from "./Matching.ts";
export * as On from "./On.ts";
export * as Options from "./Options.ts";
export * as Registry from "./Registry.ts";
export * as ResourceSpec from "./ResourceSpec.ts";
export * as SubRegistry from "./SubRegistry.ts";

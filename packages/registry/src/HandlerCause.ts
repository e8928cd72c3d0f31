/**
 * The inputs of handler matching, one per kind of cause (Kopf's `*Cause` classes minus the
 * runtime-only parts), and the contexts derived from them: the filter contexts `when` and value
 * callbacks receive, and the handler contexts (adding `param`, `retry`, `started`, `runtime`,
 * and `subregistry` for changing handlers or `stopped` for daemons and timers). `@kopf/causes`
 * and the runtime construct the causes.
 */
import { Body, Diff, FieldPath, type Json, type Patch, type Resource } from "@kopf/structs";
import type { ChangingHandler, ResourceHandler } from "./Handler.ts";
import type {
  Activity,
  ActivityContext,
  AnyFilterContext,
  BodyFields,
  ChangingContext,
  ChangingFilterContext,
  DaemonContext,
  DaemonStopped,
  IndexingContext,
  IndexingFilterContext,
  InvocationFields,
  Logger,
  Memo,
  Operation,
  Reason,
  ResourceFields,
  SpawningFilterContext,
  WatchingContext,
  WatchingFilterContext,
  WebhookContext,
  WebhookFilterContext,
  WebhookType,
} from "./HandlerContext.ts";
import type { HandlerId } from "./HandlerId.ts";
import type { SubRegistry } from "./SubRegistry.ts";

/** What every resource-level cause carries. */
export interface ResourceCauseBase {
  readonly resource: Resource.Resource;
  readonly body: Body.RawBody;
  readonly patch: Patch.Patch;
  readonly logger: Logger;
  readonly memo: Memo;
  /** The operator's indices by name; they override same-named context fields. */
  readonly indices: Readonly<Record<string, unknown>>;
}

/**
 * A change of an object (Kopf's `ChangingCause`). Whether the object is being deleted (which
 * decides on resume handlers) is read from the body's `deletionTimestamp`.
 */
export interface ChangingCause extends ResourceCauseBase {
  readonly _tag: "ChangingCause";
  readonly reason: Reason;
  /** The object was first seen by the initial listing and not yet fully handled once. */
  readonly initial: boolean;
  readonly diff: Diff.Diff;
  /** The stored essence (diff-base), `undefined` when none is stored. */
  readonly old: Json.JsonValue | undefined;
  /** The current essence. */
  readonly new: Json.JsonValue | undefined;
}

/** A raw watch event of an object (for `on.event`). */
export interface WatchingCause extends ResourceCauseBase {
  readonly _tag: "WatchingCause";
  readonly type: Body.RawEventType | null;
  readonly event: Body.RawEvent;
}

/** An object to index. */
export interface IndexingCause extends ResourceCauseBase {
  readonly _tag: "IndexingCause";
}

/** An object to spawn daemons and timers for. */
export interface SpawningCause extends ResourceCauseBase {
  readonly _tag: "SpawningCause";
}

/** An admission request. */
export interface WebhookCause extends ResourceCauseBase {
  readonly _tag: "WebhookCause";
  /** The webhook kind hinted by the request path; `undefined` means all. */
  readonly reason: WebhookType | undefined;
  /** The handler id hinted by the request path; `undefined` means all. */
  readonly webhook: HandlerId | undefined;
  readonly dryrun: boolean;
  readonly warnings: Array<string>;
  readonly subresource: string | undefined;
  readonly userinfo: Readonly<Record<string, unknown>>;
  readonly sslpeer: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly operation: Operation | undefined;
  readonly old: Body.RawBody | undefined;
  readonly new: Body.RawBody | undefined;
  readonly diff: Diff.Diff;
}

/** Any resource-level cause. */
export type ResourceCause = ChangingCause | WatchingCause | IndexingCause | SpawningCause | WebhookCause;

/** An operator-level activity (startup, cleanup, login, probe). */
export interface ActivityCause<S = unknown> {
  readonly _tag: "ActivityCause";
  readonly activity: Activity;
  readonly settings: S;
  readonly logger: Logger;
  /** The operator-level memo. */
  readonly memo: Memo;
  readonly indices: Readonly<Record<string, unknown>>;
}

/** Whether the object of a cause is being deleted (`deletionTimestamp` set). */
export const isDeleted = (cause: ResourceCauseBase): boolean =>
  Body.deletionTimestamp(cause.body) !== undefined;

/** The body-derived fields: `spec`, `meta`, `status` and friends are views (`{}` when absent). */
export const bodyFields = (body: Body.RawBody): BodyFields<Body.RawBody> => ({
  body,
  spec: Body.spec(body),
  meta: Body.meta(body),
  status: Body.status(body),
  uid: Body.uid(body),
  name: Body.name(body),
  namespace: Body.namespace(body),
  labels: Body.labels(body),
  annotations: Body.annotations(body),
});

const resourceFields = (cause: ResourceCauseBase): ResourceFields<Body.RawBody> => ({
  resource: cause.resource,
  patch: cause.patch,
  logger: cause.logger,
  memo: cause.memo,
  ...bodyFields(cause.body),
});

/** The filter context of a cause, with whole-object `old`/`new`/`diff` for changing causes. */
export function filterContext(cause: ChangingCause): ChangingFilterContext;
export function filterContext(cause: WatchingCause): WatchingFilterContext;
export function filterContext(cause: IndexingCause): IndexingFilterContext;
export function filterContext(cause: SpawningCause): SpawningFilterContext;
export function filterContext(cause: WebhookCause): WebhookFilterContext;
export function filterContext(cause: ResourceCause): AnyFilterContext;
/**
 * Builds the context filter callbacks receive; indices override same-named fields.
 *
 * @example
 * const ctx = filterContext(changingCause)
 * ctx.reason // "update"
 */
export function filterContext(cause: ResourceCause): AnyFilterContext {
  const base = resourceFields(cause);
  switch (cause._tag) {
    case "ChangingCause":
      return {
        ...base,
        reason: cause.reason,
        diff: cause.diff,
        old: cause.old,
        new: cause.new,
        ...cause.indices,
      };
    case "WatchingCause":
      return { ...base, type: cause.type, event: cause.event, ...cause.indices };
    case "WebhookCause":
      return {
        ...base,
        dryrun: cause.dryrun,
        warnings: cause.warnings,
        subresource: cause.subresource,
        userinfo: cause.userinfo,
        sslpeer: cause.sslpeer,
        headers: cause.headers,
        operation: cause.operation,
        old: cause.old,
        new: cause.new,
        diff: cause.diff,
        ...cause.indices,
      };
    default:
      return { ...base, ...cause.indices };
  }
}

/**
 * The changing cause as a field handler sees it: `old`/`new` become the field's values
 * (`undefined` when absent) and `diff` is reduced to the field (Kopf's `adjust_cause`); causes of
 * whole-object handlers are returned as they are.
 *
 * @example
 * adjustCause(fieldHandler, cause).new // the value at the handler's field in the new essence
 */
export const adjustCause = (
  handler: ChangingHandler | ResourceHandler,
  cause: ChangingCause,
): ChangingCause => {
  const field = handler.field;
  if (field === undefined) return cause;
  return {
    ...cause,
    old: FieldPath.resolve(cause.old, field) as Json.JsonValue | undefined,
    new: FieldPath.resolve(cause.new, field) as Json.JsonValue | undefined,
    diff: Diff.reduce(cause.diff, field),
  };
};

/** What the runtime adds to a changing handler's context. */
export interface ChangingInvocation extends InvocationFields {
  readonly subregistry: SubRegistry;
}

/** What the runtime adds to a daemon's or timer's context. */
export interface SpawningInvocation extends InvocationFields {
  readonly stopped: DaemonStopped;
}

export function handlerContext(cause: ChangingCause, invocation: ChangingInvocation): ChangingContext;
export function handlerContext(cause: WatchingCause, invocation: InvocationFields): WatchingContext;
export function handlerContext(cause: IndexingCause, invocation: InvocationFields): IndexingContext;
export function handlerContext(cause: SpawningCause, invocation: SpawningInvocation): DaemonContext;
export function handlerContext(cause: WebhookCause, invocation: InvocationFields): WebhookContext;
/**
 * The context a handler is invoked with: the cause's filter context plus the invocation fields,
 * with indices overriding everything (Kopf's rule). For field handlers, pass the cause through
 * `adjustCause` first.
 *
 * @example
 * const ctx = handlerContext(adjustCause(handler, cause), { param: handler.param, retry: 0, started, runtime: 0, subregistry })
 */
export function handlerContext(cause: ResourceCause, invocation: InvocationFields): unknown {
  return { ...filterContext(cause), ...invocation, ...cause.indices };
}

/**
 * The context an activity handler is invoked with; indices override everything.
 *
 * @example
 * const ctx = activityContext({ _tag: "ActivityCause", activity: "startup", settings, logger, memo, indices: {} }, invocation)
 */
export const activityContext = <S>(
  cause: ActivityCause<S>,
  invocation: InvocationFields,
): ActivityContext<S> =>
  ({
    logger: cause.logger,
    memo: cause.memo,
    activity: cause.activity,
    settings: cause.settings,
    ...invocation,
    ...cause.indices,
  }) as ActivityContext<S>;

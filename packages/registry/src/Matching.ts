/**
 * The pure selection of handlers for a cause (docs/behaviour/registration.md#filters, docs/behaviour/causes.md#handler-selection): the filter chain in Kopf's order
 * (resource → subresource → labels → annotations → field value → field change → `when`), the
 * changing-handler rules (reason relevance, resume mixing with `initial`/`deleted`), the
 * de-duplication by (function, id), `prematch` (the chain without the field-change step) and the
 * finalizer decision.
 *
 * The filter context given to callbacks is built at most once per handler check, and only when
 * a callback needs it. Callbacks are user code: what they throw propagates to the caller.
 */
import { Body, FieldPath, type Resource, Selector } from "@kopf/structs";
import { matchesFieldChange, matchesFieldValue, matchesMeta } from "./Filters.ts";
import type {
  AnyResourceFilters,
  ChangingHandler,
  IndexingHandler,
  ResourceHandler,
  SpawningHandler,
  WatchingHandler,
  WebhookHandler,
} from "./Handler.ts";
import {
  type ChangingCause,
  filterContext,
  type IndexingCause,
  isDeleted,
  type ResourceCause,
  type SpawningCause,
  type WatchingCause,
  type WebhookCause,
} from "./HandlerCause.ts";
import type { AnyFilterContext } from "./HandlerContext.ts";
import type { HandlerId } from "./HandlerId.ts";

/** Whether a handler serves a resource kind (sub-handlers, without a selector, serve any). */
export const matchesResource = (
  handler: { readonly selector: Selector.Selector | undefined },
  resource: Resource.Resource,
): boolean => handler.selector === undefined || Selector.check(handler.selector, resource);

const matchesSubresource = (handler: ResourceHandler, cause: ResourceCause): boolean =>
  handler._tag !== "WebhookHandler" ||
  cause._tag !== "WebhookCause" ||
  handler.subresource === "*" ||
  handler.subresource === cause.subresource;

/** Memoizes the filter context of a cause for the callbacks of one check. */
const lazyContext = (cause: ResourceCause): (() => AnyFilterContext) => {
  let ctx: AnyFilterContext | undefined;
  return () => {
    ctx ??= filterContext(cause);
    return ctx;
  };
};

const matchesFieldValues = (
  handler: AnyResourceFilters,
  cause: ResourceCause,
  ctx: () => AnyFilterContext,
): boolean => {
  const field = handler.field;
  if (field === undefined) return true;
  const values =
    cause._tag === "ChangingCause"
      ? [FieldPath.resolve(cause.new, field), FieldPath.resolve(cause.old, field)] // new first
      : [FieldPath.resolve(cause.body, field)];
  return matchesFieldValue(handler.value, values, ctx);
};

const matchesFieldChanges = (
  handler: ResourceHandler,
  cause: ResourceCause,
  ctx: () => AnyFilterContext,
): boolean => {
  if (handler._tag !== "ChangingHandler" || cause._tag !== "ChangingCause" || handler.field === undefined)
    return true;
  const filters = { needsChange: handler.fieldNeedsChange, old: handler.old, new: handler.new };
  return matchesFieldChange(
    filters as Parameters<typeof matchesFieldChange<AnyFilterContext>>[0],
    FieldPath.resolve(cause.old, handler.field),
    FieldPath.resolve(cause.new, handler.field),
    ctx,
  );
};

const chain = (handler: ResourceHandler, cause: ResourceCause, withFieldChanges: boolean): boolean => {
  const filters = handler as AnyResourceFilters;
  const ctx = lazyContext(cause);
  return (
    matchesResource(handler, cause.resource) &&
    matchesSubresource(handler, cause) &&
    matchesMeta(filters.labels, Body.labels(cause.body), ctx) &&
    matchesMeta(filters.annotations, Body.annotations(cause.body), ctx) &&
    matchesFieldValues(filters, cause, ctx) &&
    (!withFieldChanges || matchesFieldChanges(handler, cause, ctx)) &&
    (filters.when === undefined || filters.when(ctx()))
  );
};

/**
 * Whether a handler matches a cause: every filter passes (the `when` callback last).
 *
 * @example
 * match(onUpdateSpecSize, updateCause) // true when spec.size changed and the labels match
 */
export const match = (handler: ResourceHandler, cause: ResourceCause): boolean => chain(handler, cause, true);

/**
 * Like `match` but without the field-change step: whether the handler could be interested in
 * the object at all (used for stealth mode and the finalizer decision).
 */
export const prematch = (handler: ResourceHandler, cause: ResourceCause): boolean =>
  chain(handler, cause, false);

/**
 * Drops repeated (function, id) pairs, keeping the first: one function registered by several
 * decorators runs once per cause; the same function under different ids runs for each.
 *
 * @example
 * deduplicated([create, resumeOfSameFnAndId]) // [create]
 */
export const deduplicated = <H extends { readonly fn: unknown; readonly id: HandlerId }>(
  handlers: ReadonlyArray<H>,
): ReadonlyArray<H> => {
  const seen = new Map<unknown, Set<HandlerId>>();
  return handlers.filter((handler) => {
    const ids = seen.get(handler.fn) ?? new Set<HandlerId>();
    seen.set(handler.fn, ids);
    if (ids.has(handler.id)) return false;
    ids.add(handler.id);
    return true;
  });
};

const noneExcluded: ReadonlySet<HandlerId> = new Set();

/**
 * The changing handlers to run for a cause, in registration order, de-duplicated: the reason
 * must be the handler's (or the handler has none); resume handlers only for initial causes and,
 * for objects being deleted, only with `deleted: true`; then the full filter chain.
 *
 * @example
 * changingHandlers(registry.changing, { ...cause, reason: "create", initial: false }) // on.create and on.field handlers
 */
export const changingHandlers = (
  handlers: ReadonlyArray<ChangingHandler>,
  cause: ChangingCause,
  excluded: ReadonlySet<HandlerId> = noneExcluded,
): ReadonlyArray<ChangingHandler> =>
  deduplicated(
    handlers.filter(
      (h) =>
        !excluded.has(h.id) &&
        (h.reason === undefined || h.reason === cause.reason) &&
        !(h.initial && !cause.initial) &&
        !(h.initial && isDeleted(cause) && !h.deleted) &&
        match(h, cause),
    ),
  );

const plainSelection =
  <H extends ResourceHandler, C extends ResourceCause>() =>
  (handlers: ReadonlyArray<H>, cause: C, excluded: ReadonlySet<HandlerId> = noneExcluded): ReadonlyArray<H> =>
    deduplicated(handlers.filter((h) => !excluded.has(h.id) && match(h, cause)));

/** The `on.event` handlers matching the current body. */
export const watchingHandlers = plainSelection<WatchingHandler, WatchingCause>();

/** The index handlers matching the current body. */
export const indexingHandlers = plainSelection<IndexingHandler, IndexingCause>();

/** The daemons and timers matching the current body. */
export const spawningHandlers = plainSelection<SpawningHandler, SpawningCause>();

/**
 * The webhook handlers for an admission request: only those of the hinted kind and id (all when
 * not hinted); mutating handlers skip `DELETE` requests unless their operations are exactly
 * `DELETE`; then the filter chain (with the subresource check).
 */
export const webhookHandlers = (
  handlers: ReadonlyArray<WebhookHandler>,
  cause: WebhookCause,
  excluded: ReadonlySet<HandlerId> = noneExcluded,
): ReadonlyArray<WebhookHandler> =>
  deduplicated(
    handlers.filter((h) => {
      if (excluded.has(h.id)) return false;
      if (cause.reason !== undefined && cause.reason !== h.reason) return false;
      if (cause.webhook !== undefined && cause.webhook !== h.id) return false;
      const explicitlyForDeletion = h.operations?.size === 1 && h.operations.has("DELETE");
      if (h.reason === "mutating" && cause.operation === "DELETE" && !explicitlyForDeletion) return false;
      return match(h, cause);
    }),
  );

/**
 * Whether any changing handler could be interested in the object (the stealth-mode check: when
 * none is, the object is not touched at all).
 */
export const prematchAny = (handlers: ReadonlyArray<ChangingHandler>, cause: ChangingCause): boolean =>
  handlers.some((h) => prematch(h, cause));

/**
 * Whether the object needs our finalizer: some changing handler requiring it (a non-optional
 * on.delete) prematches the changing cause, or some daemon/timer (not excluded, e.g. stopped
 * forever) matches the spawning cause. A part without a cause (no handlers of that kind for the
 * resource, or filtered out by stealth mode) requires nothing.
 *
 * @example
 * requiresFinalizer({ changing: { handlers: [onDeleteMandatory], cause } }) // true
 */
export const requiresFinalizer = (input: {
  readonly changing?: { readonly handlers: ReadonlyArray<ChangingHandler>; readonly cause: ChangingCause };
  readonly spawning?: {
    readonly handlers: ReadonlyArray<SpawningHandler>;
    readonly cause: SpawningCause;
    readonly excluded?: ReadonlySet<HandlerId>;
  };
}): boolean => {
  const { changing, spawning } = input;
  const excluded = spawning?.excluded ?? noneExcluded;
  const bySpawning = spawning?.handlers.some(
    (h) => !excluded.has(h.id) && h.requiresFinalizer && match(h, spawning.cause),
  );
  const byChanging = changing?.handlers.some((h) => h.requiresFinalizer && prematch(h, changing.cause));
  return bySpawning === true || byChanging === true;
};

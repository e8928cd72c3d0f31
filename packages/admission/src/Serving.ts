/**
 * Serving one admission request (Kopf's `serve_admission_request`): find the served
 * resource of the request, build the webhook cause (body, old/new/diff, memo, Kopf's admission
 * kwargs), select the handlers (reason hint, webhook id, DELETE vs mutating, subresource,
 * filters), run them all at once with permanent errors and no retries through the runtime's
 * execution engine, and answer the AdmissionReview response. The names of the request and the
 * messages of its handlers' loggers are bounded (`Bounded`), so that what a request carries never
 * makes a log line long.
 */

import {
  type HandlerCause,
  Lifecycles,
  Matching,
  type Memo,
  type Registry,
  type WebhookHandler,
  type WebhookType,
} from "@kopf/registry";
import { Handling, Logging } from "@kopf/runtime";
import { OperatorSettings } from "@kopf/settings";
import { State } from "@kopf/storage";
import { Diff, IsoTime, Patch, type RawBody, Resource } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as AdmissionMetrics from "./AdmissionMetrics.ts";
import * as Bounded from "./Bounded.ts";
import * as Conversion from "./Conversion.ts";
import * as Response from "./Response.ts";
import type * as Review from "./Review.ts";

/** Why a request cannot be served (the built-in servers answer 404 and 409). */
export class ServingError extends Data.TaggedError("ServingError")<{
  readonly reason: "UnknownResource" | "AmbiguousResource";
  readonly message: string;
}> {}

/** What the server knows about one request besides the review. */
export interface Call {
  readonly review: Review.Review;
  /** The handler id from the URL (everything after the server's path); `undefined` means all. */
  readonly webhook?: string | undefined;
  /** The kind of webhook hinted by the server, if any; `undefined` means both. */
  readonly reason?: WebhookType | undefined;
  /** The HTTP request headers (lower-cased names). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The TLS client certificate's fields; `{}` without one. */
  readonly sslpeer?: Readonly<Record<string, unknown>> | undefined;
}

/** What serving needs from the operator. */
export interface ServingOptions {
  readonly registry: Registry.Registry<any>;
  /** The resources served by webhooks (the insights' `webhooks`), read on every request. */
  readonly resources: () => ReadonlyArray<Resource.Resource>;
  /** The operator's memo; `CREATE` requests get a throw-away shallow copy of it. */
  readonly memo: Memo;
  /**
   * The memo of an existing object, when the runtime shares its per-object memories; without it
   * every request gets a throw-away shallow copy of the operator's memo.
   */
  readonly memoOf?: ((resource: Resource.Resource, body: RawBody) => Memo | undefined) | undefined;
  /** The operator's indices by name (they override same-named kwargs). */
  readonly indices?: (() => Readonly<Record<string, unknown>>) | undefined;
}

/**
 * The function a webhook server calls for every decoded request; `convert` answers the
 * ConversionReviews of the operator's typed resources (see `Conversion`).
 */
export type WebhookFn = ((call: Call) => Effect.Effect<Response.ResponseDocument, ServingError>) & {
  readonly convert?: ((webhook: string, review: unknown) => Conversion.Answer) | undefined;
};

/**
 * The unique served resource of a request (by group, version and plural).
 *
 * @example
 * Serving.resourceOf([kopfexamples], { group: "kopf.dev", version: "v1", resource: "kopfexamples" })
 */
export const resourceOf = (
  resources: ReadonlyArray<Resource.Resource>,
  gvr: Review.GroupVersionResource,
): Effect.Effect<Resource.Resource, ServingError> => {
  const found = resources.filter(
    (r) => r.group === gvr.group && r.version === gvr.version && r.plural === gvr.resource,
  );
  const text = `{group: ${Bounded.preview(gvr.group)}, version: ${Bounded.preview(gvr.version)}, resource: ${Bounded.preview(gvr.resource)}}`;
  if (found.length === 0) {
    return Effect.fail(
      new ServingError({
        reason: "UnknownResource",
        message: `The specified resource has no handlers: ${text}`,
      }),
    );
  }
  if (found.length > 1) {
    return Effect.fail(
      new ServingError({
        reason: "AmbiguousResource",
        message: `The specified resource is ambiguous: ${text}`,
      }),
    );
  }
  return Effect.succeed(found[0] as Resource.Resource);
};

const shallowCopy = (memo: Memo): Memo => Object.assign(Object.create(Object.getPrototypeOf(memo)), memo);

/**
 * The webhook function of an operator: serves each call with the registry's webhook handlers,
 * in the context (settings, loggers) in force when it is made.
 *
 * @example
 * ```ts
 * const fn = yield* Serving.make({ registry, resources: () => insights.webhooks, memo: {} })
 * const document = yield* fn({ review, webhook: "validate_fn" })
 * ```
 */
export const make = (options: ServingOptions): Effect.Effect<WebhookFn> =>
  Effect.gen(function* () {
    const services = yield* Effect.context<never>();
    const fn: WebhookFn = Object.assign(
      (call: Call) =>
        AdmissionMetrics.measured(
          { webhook: call.webhook ?? "", kind: call.reason ?? "" },
          serve(options, call),
        ).pipe(Effect.provideContext(services)),
      {
        convert: (webhook: string, review: unknown) =>
          Conversion.answer(options.registry.resources, webhook, review),
      },
    );
    return fn;
  });

/**
 * Serves one call: selects and runs the handlers, answers the response document.
 *
 * @example
 * const document = yield* Serving.serve(options, { review, webhook: "check" })
 */
export const serve = (
  options: ServingOptions,
  call: Call,
): Effect.Effect<Response.ResponseDocument, ServingError> =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const { request } = call.review;
    const resource = yield* resourceOf(options.resources(), request.resource);
    const body = (request.object ?? request.oldObject ?? {}) as RawBody;
    const memo =
      request.operation === "CREATE"
        ? shallowCopy(options.memo)
        : (options.memoOf?.(resource, body) ?? shallowCopy(options.memo));
    const patch = Patch.make(body);
    const warnings: Array<string> = [];
    const services = yield* Effect.context<never>();
    // The request's names reach every log line of its handlers: bounded, whatever was sent.
    const ref = {
      apiVersion: Resource.apiVersion(resource),
      kind: resource.kind ?? "",
      name: Bounded.text(String(request.name ?? body.metadata?.name ?? ""), Bounded.MAX_NAME),
      uid: Bounded.text(String(body.metadata?.uid ?? ""), Bounded.MAX_NAME),
      ...(request.namespace === undefined
        ? {}
        : { namespace: Bounded.text(request.namespace, Bounded.MAX_NAME) }),
    };
    const cause: HandlerCause.WebhookCause = {
      _tag: "WebhookCause",
      resource,
      body,
      patch,
      logger: Bounded.logger(
        Logging.handlerLogger(services, {
          [Logging.OBJECT]: ref,
          [Logging.LOGGER]: "kopf.objects",
          [Logging.LOCAL]: true,
        }),
      ),
      memo,
      indices: options.indices?.() ?? {},
      reason: call.reason,
      webhook: call.webhook,
      dryrun: request.dryRun,
      warnings,
      subresource: request.subResource,
      userinfo: request.userInfo,
      sslpeer: call.sslpeer ?? {},
      headers: call.headers ?? {},
      operation: request.operation,
      old: request.oldObject,
      new: request.object,
      diff: Diff.diff(request.oldObject, request.object),
    };
    const handlers: ReadonlyArray<WebhookHandler> = Matching.webhookHandlers(
      options.registry.webhooksFor(resource),
      cause,
    );
    const now = yield* IsoTime.now;
    const outcomes = yield* Handling.executeHandlersOnce({
      lifecycle: Lifecycles.all_at_once,
      settings,
      handlers,
      cause,
      state: State.withHandlers(State.empty(), handlers, now),
    });
    const errors = handlers.flatMap((h) => {
      const error = outcomes.get(h.id)?.error;
      return error === undefined || error === null ? [] : [error as unknown];
    });
    const ops = patch.asJsonPatch(body);
    return Response.build({
      apiVersion: call.review.apiVersion,
      kind: call.review.kind,
      uid: request.uid,
      errors,
      warnings,
      patch: ops._tag === "Success" ? ops.success : [],
    });
  }).pipe(Effect.withSpan("admission.serve"));

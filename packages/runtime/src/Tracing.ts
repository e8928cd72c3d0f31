/**
 * The operator's trace spans, as Effect spans (exported to OpenTelemetry when an exporter is
 * configured, see `@kopf/engines`' tracing): one span per processing cycle of an object's event
 * (the object, the event, the resourceVersion; the cause is added once known), and one per
 * handler invocation inside it (id, reason, retry, how it ended). Handlers run inside their
 * span, so the spans users open in Effect handlers nest under it. Daemons and timers run long,
 * so each of their invocations is a trace of its own.
 *
 * The spans capture no stack trace: it would always point into this module, and capturing it
 * for every cycle and handler costs measurable CPU per object. With Effect's tracer turned off
 * (`References.TracerEnabled`, which the operator sets when it exports no traces) no span is
 * made: the effect runs as it is.
 */
import type { RawEvent } from "@kopf/structs";
import { Body } from "@kopf/structs";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as References from "effect/References";
import type * as ErrorModes from "./execution/ErrorModes.ts";

/**
 * The attributes of a processing cycle's span.
 *
 * @example
 * cycleAttributes("kopfexamples.v1.kopf.dev", { type: "ADDED", object: body })
 * // { "kopf.resource": "kopfexamples.v1.kopf.dev", "k8s.namespace.name": "ns1", "kopf.object.name": "kex1", ... }
 */
export const cycleAttributes = (resource: string, event: RawEvent): Record<string, string> => {
  const attributes: Record<string, string> = {
    "kopf.resource": resource,
    "kopf.event.type": event.type ?? "LIST",
  };
  const namespace = Body.namespace(event.object);
  const name = Body.name(event.object);
  const uid = Body.uid(event.object);
  const version = event.object.metadata?.resourceVersion;
  if (namespace !== undefined) attributes["k8s.namespace.name"] = namespace;
  if (name !== undefined) attributes["kopf.object.name"] = name;
  if (uid !== undefined) attributes["kopf.object.uid"] = uid;
  if (typeof version === "string") attributes["kopf.object.resource_version"] = version;
  return attributes;
};

/**
 * Runs one processing cycle in its span (`process {resource}`).
 *
 * @example
 * ```ts
 * yield* Tracing.cycle("kopfexamples.v1.kopf.dev", event, process(event))
 * ```
 */
export const cycle = <A, E, R>(
  resource: string,
  event: RawEvent,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  whenTracing(effect, () =>
    Effect.withSpan(effect, `process ${resource}`, {
      attributes: cycleAttributes(resource, event),
      captureStackTrace: false,
    }),
  );

/** `traced()` when Effect's tracer is on, else `effect` as it is (no span, no attributes built). */
const whenTracing = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  traced: () => Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => (fiber.getRef(References.TracerEnabled) ? traced() : effect));

/**
 * Names the cause of the current cycle on its span.
 *
 * @example
 * ```ts
 * yield* Tracing.cause("create")
 * ```
 */
export const cause = (reason: string): Effect.Effect<void> =>
  Effect.withFiberSucceed((fiber) => causeNow(fiber, reason));

/**
 * The same as {@link cause}, at once, on the current span of `fiber`.
 *
 * @example
 * ```ts
 * Effect.withFiberSucceed((fiber) => Tracing.causeNow(fiber, "create"))
 * ```
 */
export const causeNow = (fiber: Fiber.Fiber<unknown, unknown>, reason: string): void => {
  const span = fiber.cache.span;
  if (span?._tag === "Span" && span.status._tag !== "Ended" && fiber.getRef(References.TracerEnabled))
    span.attribute("kopf.cause", reason);
};

/**
 * Runs one handler invocation in its span (`handler {id}`); `root` starts a trace of its own.
 *
 * @example
 * ```ts
 * yield* Tracing.handler({ handler: "create_fn", reason: "create", retry: 0, root: false }, attempt)
 * ```
 */
export const handler = <A, E, R>(
  labels: {
    readonly handler: string;
    readonly reason: string;
    readonly retry: number;
    readonly root: boolean;
  },
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  whenTracing(effect, () =>
    Effect.withSpan(effect, `handler ${labels.handler}`, {
      root: labels.root,
      captureStackTrace: false,
      attributes: {
        "kopf.handler.id": labels.handler,
        "kopf.handler.reason": labels.reason,
        "kopf.handler.retry": labels.retry,
      },
    }),
  );

/**
 * Records how a handler's invocation ended on its span: `kopf.handler.outcome` (`succeeded`,
 * `pending`, `failed`) and, for failures, `error.type` (the kind: `temporary`, `permanent`, ...).
 *
 * @example
 * ```ts
 * yield* Tracing.ended({ _tag: "Failed", kind: "temporary" })
 * ```
 */
export const ended = (end: ErrorModes.End): Effect.Effect<void> =>
  Effect.withFiberSucceed((fiber) => endedNow(fiber, end));

/**
 * The same as {@link ended}, at once, on the current span of `fiber` (for code already running
 * synchronously in it).
 *
 * @example
 * ```ts
 * Effect.withFiberSucceed((fiber) => Tracing.endedNow(fiber, { _tag: "Succeeded" }))
 * ```
 */
export const endedNow = (fiber: Fiber.Fiber<unknown, unknown>, end: ErrorModes.End): void => {
  const span = fiber.cache.span;
  if (span?._tag !== "Span" || span.status._tag === "Ended" || !fiber.getRef(References.TracerEnabled))
    return;
  if (end._tag === "Failed") {
    span.attribute("kopf.handler.outcome", "failed");
    span.attribute("error.type", end.kind);
  } else span.attribute("kopf.handler.outcome", end._tag === "Succeeded" ? "succeeded" : "pending");
};

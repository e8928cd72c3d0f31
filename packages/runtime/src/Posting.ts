/**
 * Kubernetes events about objects (Kopf's `kopf.event/info/warn/exception` and the
 * log-to-events bridge, docs/behaviour/events-and-logs.md#posting-events, docs/behaviour/events-and-logs.md#logs-as-events): events are queued synchronously (handlers
 * call these from plain code) and posted in order by a background fiber through
 * `KubeApi.postEvent`, which builds Kopf's event body, shortens long messages, skips events
 * about `v1/Event` objects and logs API failures as warnings.
 *
 * Gating follows Kopf: `event` needs `posting.enabled`; `info` also needs `posting.level` ≤
 * INFO; `exception` needs it ≤ ERROR; `warn` (a Kopf quirk we keep) checks only the level ≤
 * WARNING. The bridge posts log lines of object loggers only when `posting.enabled` and
 * `posting.loggers` (off by default) and the line's level reaches `posting.level`; local loggers
 * never post.
 */
import { KubeApi } from "@kopf/client";
import type { OperatorSettings } from "@kopf/settings";
import type { KubeObject, ObjectReference } from "@kopf/structs";
import * as Context from "effect/Context";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as Option from "effect/Option";
import * as Queue from "effect/Queue";
import type * as Scope from "effect/Scope";
import * as Logging from "./Logging.ts";

/** An event to post. */
export interface EventSpec {
  readonly type: string;
  readonly reason: string;
  readonly message?: string | undefined;
}

/** The queue of events to post. */
export interface Poster {
  /** Queues an event about an object (never blocks, never fails). */
  readonly enqueue: (ref: ObjectReference, spec: EventSpec) => void;
}

/** How long the events still queued at exit may take to be posted. */
export const DRAIN_SECONDS = 5;

/**
 * Starts the background poster in the current scope; closing the scope posts what is still
 * queued (for {@link DRAIN_SECONDS} at most).
 *
 * @example
 * ```ts
 * const poster = yield* Posting.make
 * poster.enqueue(Posting.referenceOf(body), { type: "Normal", reason: "Created", message: "done" })
 * ```
 */
export const make: Effect.Effect<Poster, never, KubeApi | Scope.Scope> = Effect.gen(function* () {
  const api = yield* KubeApi;
  const queue = yield* Queue.unbounded<readonly [ObjectReference, EventSpec]>();
  const post = ([ref, spec]: readonly [ObjectReference, EventSpec]) =>
    api
      .postEvent(ref, spec)
      .pipe(
        Effect.catch((error) =>
          Effect.logWarning(`Failed to post an event. Ignoring and continuing. ${error.message}`),
        ),
      );
  // On exit, what is still queued (e.g. by cleanup handlers) is posted, for a few seconds at most.
  const drain = Effect.gen(function* () {
    let next = yield* Queue.poll(queue);
    while (Option.isSome(next)) {
      yield* post(next.value);
      next = yield* Queue.poll(queue);
    }
  }).pipe(Effect.timeoutOption(Duration.seconds(DRAIN_SECONDS)), Effect.asVoid);
  yield* Effect.addFinalizer(() => drain);
  yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(queue), post)));
  return { enqueue: (ref, spec) => void Queue.offerUnsafe(queue, [ref, spec]) };
});

/**
 * The reference of a body, as events need it (`involvedObject`).
 *
 * @example
 * referenceOf({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", uid: "u" } })
 * // { apiVersion: "v1", kind: "Pod", name: "p", uid: "u", namespace: "ns" }
 */
export const referenceOf = (body: KubeObject): ObjectReference => {
  const ref: { [key: string]: string } = {};
  if (typeof body.apiVersion === "string") ref.apiVersion = body.apiVersion;
  if (typeof body.kind === "string") ref.kind = body.kind;
  const meta: unknown = body.metadata;
  const field = (key: "name" | "uid" | "namespace") => {
    const value =
      typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[key] : undefined;
    if (typeof value === "string") ref[key] = value;
  };
  field("name");
  field("uid");
  field("namespace");
  return ref;
};

/**
 * One object or nested iterables of objects (Kopf's `objs`): bodies, kubernetes-fluent-client
 * model instances or one's own resource types, as they are.
 */
export type Objects = KubeObject | Iterable<Objects>;

const isIterable = (value: unknown): value is Iterable<Objects> =>
  typeof value === "object" && value !== null && Symbol.iterator in value;

/**
 * The bodies of nested iterables, in order.
 *
 * @example
 * flatten([a, [b, [c]]]) // [a, b, c]
 */
export const flatten = (objs: Objects): ReadonlyArray<KubeObject> =>
  isIterable(objs) ? [...objs].flatMap(flatten) : [objs];

const level = (settings: OperatorSettings): number => Logging.levelNumber(settings.posting.level);

/** The explicit posting calls, bound to a poster and (live) settings. */
export interface Events {
  event(objs: Objects, options: { type: string; reason: string; message?: string }): void;
  info(objs: Objects, options: { reason: string; message?: string }): void;
  warn(objs: Objects, options: { reason: string; message?: string }): void;
  exception(objs: Objects, options?: { reason?: string; message?: string; exc?: unknown }): void;
}

const errorName = (error: unknown): string =>
  error instanceof Error
    ? error.constructor.name || error.name
    : typeof error === "object" && error !== null && "_tag" in error
      ? String((error as { _tag: unknown })._tag)
      : "Error";

const errorText = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error);

/**
 * Kopf's `event`, `info`, `warn` and `exception`, gated by the settings read at each call.
 *
 * @example
 * ```ts
 * const events = Posting.events(poster, () => settings)
 * events.info(body, { reason: "Created", message: "The pod is up." })
 * ```
 */
export const events = (poster: Poster, settings: () => OperatorSettings): Events => {
  const post = (objs: Objects, spec: EventSpec) => {
    for (const body of flatten(objs)) poster.enqueue(referenceOf(body), spec);
  };
  return {
    event: (objs, { type, reason, message = "" }) => {
      if (settings().posting.enabled) post(objs, { type, reason, message });
    },
    info: (objs, { reason, message = "" }) => {
      if (settings().posting.enabled && level(settings()) <= 20)
        post(objs, { type: "Normal", reason, message });
    },
    warn: (objs, { reason, message = "" }) => {
      if (level(settings()) <= 30) post(objs, { type: "Warning", reason, message });
    },
    exception: (objs, { reason, message = "", exc } = {}) => {
      if (!(settings().posting.enabled && level(settings()) <= 40)) return;
      const text =
        exc === undefined ? message : message === "" ? errorText(exc) : `${message} ${errorText(exc)}`;
      post(objs, {
        type: "Error",
        reason: reason || (exc === undefined ? "" : errorName(exc)),
        message: text,
      });
    },
  };
};

/**
 * The explicit posting calls of the running operator, for code running inside it (handlers read
 * it through the facade's ambient binding); `undefined` outside of an operator.
 */
export const CurrentEvents: Context.Reference<Events | undefined> = Context.Reference<Events | undefined>(
  "@kopf/runtime/Posting/CurrentEvents",
  { defaultValue: () => undefined },
);

const running: Array<Events> = [];

/**
 * Registers the posting calls of a running operator for {@link ambient} for the scope's
 * lifetime (the operator does this while it runs).
 */
export const registerAmbient = (events: Events): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => void running.push(events)),
    () =>
      Effect.sync(() => {
        const index = running.lastIndexOf(events);
        if (index >= 0) running.splice(index, 1);
      }),
  );

/**
 * The posting calls of the running operator, for plain (non-Effect) handler code such as the
 * facade's `kopf.info(...)`: the most recently started operator of this process that still
 * runs; `undefined` when none runs. (Effect handlers read {@link CurrentEvents} instead, which
 * is exact even with several operators in one process.)
 *
 * @example
 * ```ts
 * Posting.ambient()?.info(body, { reason: "Created", message: "done" })
 * ```
 */
export const ambient = (): Events | undefined => running[running.length - 1];

/**
 * Whether these posting calls belong to an operator that still runs (registered by
 * {@link registerAmbient} and not yet stopped).
 *
 * @example
 * ```ts
 * const events = remembered !== undefined && Posting.isRunning(remembered) ? remembered : Posting.ambient()
 * ```
 */
export const isRunning = (events: Events): boolean => running.includes(events);

/**
 * The event type of a log level (docs/behaviour/events-and-logs.md#logs-as-events).
 *
 * @example
 * eventType(30) // "Warning"
 */
export const eventType = (levelno: number): string =>
  levelno <= 10
    ? "Debug"
    : levelno <= 20
      ? "Normal"
      : levelno <= 30
        ? "Warning"
        : levelno <= 40
          ? "Error"
          : "Fatal";

/**
 * The log-to-events bridge: an Effect logger posting object log lines as events, when enabled.
 *
 * @example
 * ```ts
 * Logger.layer([Logging.logger({ format: "full" }, write), Posting.bridge(poster, () => settings)], { mergeWithExisting: false })
 * ```
 */
export const bridge = (poster: Poster, settings: () => OperatorSettings): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    const current = settings().posting;
    if (!current.enabled || !current.loggers) return;
    const record = Logging.recordOf(options);
    if (record.ref === undefined) return;
    if (Logging.isLocal(options)) return;
    const levelno = Logging.levelNumber(record.level);
    if (levelno < Logging.levelNumber(current.level)) return;
    poster.enqueue(record.ref as ObjectReference, {
      type: eventType(levelno),
      reason: "Logging",
      message: record.message,
    });
  });

/**
 * `kopf.event`, `kopf.info`, `kopf.warn` and `kopf.exception` (spec §5.12): Kubernetes events
 * about objects, posted in the background by the running operator, gated by its posting
 * settings. Handlers call them from plain code, so they find the operator by themselves: the
 * handler's own fiber while it runs synchronously (sync handlers, Effect handlers, async ones
 * before their first `await`), else the operator whose changing handler was invoked last (one
 * operator per process is the norm, as in Kopf). Outside any operator they throw an error
 * naming the problem.
 */
import { type Ambient, AmbientHandlers, Posting } from "@kopf/runtime";
import { Data, Fiber } from "effect";

/** `kopf.event()` and friends were called where no operator runs. */
export class EventsError extends Data.TaggedError("EventsError")<{
  readonly reason: "NoOperator";
  readonly message: string;
}> {}

let lastSeen: Posting.Events | undefined;

/**
 * The handler runner the facade's operators use: the runtime's ambient binding, plus noting the
 * operator's event poster for handlers that post after an `await`.
 */
export const runner: Ambient.AmbientRunner = {
  run: (binding, call) => {
    lastSeen = Fiber.getCurrent()?.getRef(Posting.CurrentEvents) ?? lastSeen;
    return AmbientHandlers.runner.run(binding, call);
  },
  runObject: (body, call) => {
    lastSeen = Fiber.getCurrent()?.getRef(Posting.CurrentEvents) ?? lastSeen;
    return AmbientHandlers.runner.runObject!(body, call);
  },
};

const current = (what: string): Posting.Events => {
  // The handler's fiber; else the operator whose handler ran last through this runner, if it still
  // runs; else the running operator (e.g. one started by KopfRunner, which binds handlers itself).
  const remembered = lastSeen !== undefined && Posting.isRunning(lastSeen) ? lastSeen : undefined;
  const events = Fiber.getCurrent()?.getRef(Posting.CurrentEvents) ?? remembered ?? Posting.ambient();
  if (events === undefined) {
    throw new EventsError({
      reason: "NoOperator",
      message: `kopf.${what}() posts through a running operator; call it from a handler (or while kopf.run/kopf.operator runs).`,
    });
  }
  return events;
};

/** The objects events are about: one body or (nested) iterables of bodies. */
export type Objects = Posting.Objects;

/**
 * Posts an event of any type about the objects.
 *
 * @example
 * kopf.on.create("kopfexamples", ({ body }) => {
 *   kopf.event(body, { type: "SomeType", reason: "SomeReason", message: "Some message" })
 * })
 */
export const event = (objs: Objects, options: { type: string; reason: string; message?: string }): void =>
  current("event").event(objs, options);

/**
 * Posts a `Normal` event.
 *
 * @example
 * kopf.info(body, { reason: "Created", message: "The pod is up." })
 */
export const info = (objs: Objects, options: { reason: string; message?: string }): void =>
  current("info").info(objs, options);

/**
 * Posts a `Warning` event.
 *
 * @example
 * kopf.warn(body, { reason: "Slow", message: "The pod takes long to start." })
 */
export const warn = (objs: Objects, options: { reason: string; message?: string }): void =>
  current("warn").warn(objs, options);

/**
 * Posts an `Error` event, with the error's text appended to the message.
 *
 * @example
 * try { risky() } catch (exc) { kopf.exception(body, { reason: "Failed", message: "Some exception:", exc }) }
 */
export const exception = (
  objs: Objects,
  options?: { reason?: string; message?: string; exc?: unknown },
): void => current("exception").exception(objs, options);

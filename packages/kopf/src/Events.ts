/**
 * `kopf.event`, `kopf.info`, `kopf.warn` and `kopf.exception` (docs/behaviour/events-and-logs.md#posting-events): Kubernetes events
 * about objects, posted in the background by the running operator, gated by its posting
 * settings. Handlers call them from plain code, so they find the operator by themselves: the one
 * running the handler, kept in the handler's fiber and (for plain and async code, across
 * `await`s) in an `AsyncLocalStorage`, exact even with several operators in one process; outside
 * handlers, the most recently started operator that still runs. Outside any operator they throw
 * an error naming the problem.
 */
import { type Ambient, AmbientHandlers, Posting } from "@kopf/runtime";
import * as Data from "effect/Data";

/** `kopf.event()` and friends were called where no operator runs. */
export class EventsError extends Data.TaggedError("EventsError")<{
  readonly reason: "NoOperator";
  readonly message: string;
}> {}

/**
 * The handler runner the facade's operators use: the runtime's ambient binding, which also keeps
 * the running operator's posting calls for handlers that post after an `await`.
 */
export const runner: Ambient.AmbientRunner = AmbientHandlers.runner;

const current = (what: string): Posting.Events => {
  const events = AmbientHandlers.currentEvents() ?? Posting.ambient();
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

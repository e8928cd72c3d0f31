/**
 * The watching cause: a raw watch event of one object, for the `on.event` handlers (Kopf's
 * `detect_watching_cause`). Every event makes one, whatever changed.
 */
import type { HandlerCause } from "@kopf/registry";
import type { RawEvent } from "@kopf/structs";
import type { ResourceContext } from "./ResourceCause.ts";

/** The cause `on.event` handlers are matched and invoked with. */
export type WatchingCause = HandlerCause.WatchingCause;

/**
 * The watching cause of a raw event: its type (`null` for the initial listing), the event and
 * its object as the body.
 *
 * @example
 * ```ts
 * import { WatchingCause } from "@kopf/causes";
 * declare const context: ResourceCause.ResourceContext;
 * const cause = WatchingCause.make({ type: "ADDED", object: { metadata: { name: "x" } } }, context);
 * cause.type; // "ADDED"
 * ```
 */
export const make = (event: RawEvent, context: ResourceContext): WatchingCause => ({
  ...context,
  _tag: "WatchingCause",
  body: event.object,
  type: event.type,
  event,
});

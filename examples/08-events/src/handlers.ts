/**
 * Kopf's example 08: low-level event handlers. They run for every watch event of the object,
 * are never retried, and their failures are logged and ignored.
 */
import * as kopf from "kopf";

kopf.on.event("kopfexamples", function event_fn_with_error() {
  throw new Error("Oops!");
});

kopf.on.event("kopfexamples", function normal_event_fn({ event, logger }) {
  logger.info(`Event received: ${JSON.stringify({ type: event.type, name: event.object.metadata?.name })}`);
});

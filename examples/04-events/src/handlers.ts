/**
 * Kopf's example 04: posting Kubernetes events about the handled object (or any other objects):
 * the all-purpose `kopf.event()` and the shortcuts `info`, `warn` and `exception`.
 */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn({ body }) {
  // The all-purpose function for the event creation.
  kopf.event(body, { type: "SomeType", reason: "SomeReason", message: "Some message" });

  // The shortcuts for the conventional events and common cases.
  kopf.info(body, { reason: "SomeReason", message: "Some message" });
  kopf.warn(body, { reason: "SomeReason", message: "Some message" });

  try {
    throw new Error("Exception text.");
  } catch (exc) {
    kopf.exception(body, { reason: "SomeReason", message: "Some exception:", exc });
  }
});

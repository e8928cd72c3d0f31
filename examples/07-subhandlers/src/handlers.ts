/**
 * Kopf's example 07: sub-handlers. The create handler declares one sub-handler per item of
 * `spec.items`; each is run, retried and persisted on its own (ids `create_fn/<item>`), and the
 * parent succeeds once all of them have.
 */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn({ spec }) {
  const items = Array.isArray(spec.items) ? spec.items.map(String) : [];
  for (const item of items) {
    kopf.subhandler({ id: item }, async function create_item_fn({ logger }) {
      logger.info(`=== Handling creation for ${item}. ===`);
      return { handled: item };
    });
  }
});

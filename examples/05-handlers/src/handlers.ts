/**
 * Kopf's example 05: several handlers per cause — resume (for objects existing when the operator
 * starts), create, update (with the old/new/diff of the change), delete (which makes the operator
 * keep a finalizer on the object until they are done), and a field handler for `spec.field`.
 */
import * as kopf from "kopf";

kopf.on.resume("kopfexamples", function resume_fn_1({ logger }) {
  logger.info("RESUMED 1st");
});

kopf.on.create("kopfexamples", function create_fn_1({ logger }) {
  logger.info("CREATED 1st");
});

kopf.on.resume("kopfexamples", function resume_fn_2({ logger }) {
  logger.info("RESUMED 2nd");
});

kopf.on.create("kopfexamples", function create_fn_2({ logger }) {
  logger.info("CREATED 2nd");
});

kopf.on.update("kopfexamples", function update_fn({ diff, logger }) {
  logger.info(`UPDATED: ${JSON.stringify(diff)}`);
});

kopf.on.delete("kopfexamples", function delete_fn_1({ logger }) {
  logger.info("DELETED 1st");
});

kopf.on.delete("kopfexamples", function delete_fn_2({ logger }) {
  logger.info("DELETED 2nd");
});

kopf.on.field("kopfexamples", { field: "spec.field" }, function field_fn({ old, new: value, logger }) {
  logger.info(`FIELD CHANGED: ${String(old)} -> ${String(value)}`);
});

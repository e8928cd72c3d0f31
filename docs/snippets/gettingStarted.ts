/** docs/guide/getting-started.md: the first operator's handlers. */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn({ spec, name, logger }) {
  logger.info(`Creating ${name} with ${JSON.stringify(spec)}`);
  return { message: "hello world" }; // stored in status.create_fn
});

kopf.on.update("kopfexamples", { field: "spec.field" }, function field_changed({ old, new: value, logger }) {
  logger.info(`spec.field changed from ${JSON.stringify(old)} to ${JSON.stringify(value)}`);
});

kopf.on.delete("kopfexamples", function delete_fn({ name, logger }) {
  logger.info(`Deleting ${name}: cleaning up what it owns`);
});

/** docs/guide/migrating-from-kopf.md: a Python Kopf handler file, ported. */
import * as kopf from "kopf";

// block: ported
kopf.on.startup(function configure({ settings }) {
  settings.posting.level = "Warn";
});

kopf.on.create("kopfexamples", { retries: 3, backoff: 10 }, function create_fn({ spec, name, logger }) {
  if (spec.field === undefined) throw new kopf.PermanentError("spec.field is required");
  logger.info(`Creating ${name}`);
  return { message: "hello world" };
});

kopf.on.update("kopfexamples", { field: "spec.field" }, function field_fn({ old, new: value, diff }) {
  return { changes: diff.length, from: old ?? null, to: value ?? null };
});

kopf.on.delete("kopfexamples", { optional: true }, async function delete_fn({ body }) {
  kopf.info(body, { reason: "Deleted", message: "Good bye." });
});

kopf.timer("kopfexamples", { interval: 60, idle: 10 }, function tick({ patch }) {
  patch.status.ticked = true;
});

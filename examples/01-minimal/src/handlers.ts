/**
 * Kopf's example 01: the minimal operator. One create handler for KopfExample objects; what it
 * returns is stored in the object's status under the handler's id (`status.create_fn`).
 */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn({ spec, logger }) {
  logger.info(`And here we are! Creating: ${JSON.stringify(spec)}`);
  return { message: "hello world" }; // will be the new status
});

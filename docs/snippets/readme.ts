/** README.md: the minimal operator. */
import * as kopf from "kopf";

kopf.on.create("kopfexamples.kopf.dev", function create_fn({ spec, logger }) {
  logger.info(`Creating with spec ${JSON.stringify(spec)}`);
  return { message: "hello world" }; // stored in status.create_fn
});

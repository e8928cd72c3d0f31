/**
 * Kopf's example 09: an operator worth testing — its create handler logs a line. The test in
 * `test/09.test.ts` shows how to test an operator with `KopfRunner`.
 */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn({ logger }) {
  logger.info("Something was logged here.");
});

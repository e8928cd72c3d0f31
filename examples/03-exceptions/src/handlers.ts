/**
 * Kopf's example 03: how handler errors are treated. A permanent error fails the handler at once;
 * a temporary error retries it after its delay; other errors are retried with the backoff until
 * the retries run out — unless the handler's error mode says they are permanent.
 */
import * as kopf from "kopf";

class MyException extends Error {
  override name = "MyException";
}

kopf.on.create("kopfexamples", function instant_failure_with_only_a_message() {
  throw new kopf.PermanentError("Fail once and for all.");
});

kopf.on.create("kopfexamples", function eventual_success_with_a_few_messages({ retry }) {
  if (retry < 3) {
    // 0, 1, 2, 3
    throw new kopf.TemporaryError("Expected recoverable error.", { delay: 1.0 });
  }
});

kopf.on.create("kopfexamples", { retries: 3, backoff: 1.0 }, function eventual_failure_with_tracebacks() {
  throw new MyException("An error that is supposed to be recoverable.");
});

kopf.on.create(
  "kopfexamples",
  { errors: kopf.ErrorsMode.PERMANENT, backoff: 1.0 },
  function instant_failure_with_traceback() {
    throw new MyException("An error that is supposed to be recoverable.");
  },
);

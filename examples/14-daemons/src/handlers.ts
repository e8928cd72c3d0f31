/**
 * Kopf's example 14: daemons — long-running tasks per object, started when the object appears
 * (and after their retries), stopped when it is deleted (the object is kept by the finalizer
 * until they exited).
 *
 * - `background_sync` is cooperative: it checks the `stopped` flag and sleeps with
 *   `stopped.wait()`, so it exits at once when asked. It fails 3 times first (retried after 1 s
 *   each), writes its progress into the status, and finishes on its own after 30 s.
 * - `background_async` ignores the flag and loops forever (an Effect, so it can be interrupted,
 *   as Kopf's async daemons get `CancelledError`): when its object is deleted it is cancelled
 *   after `cancellationBackoff` (1 s), within `cancellationTimeout` (0.5 s more).
 */
import { Effect } from "effect";
import * as kopf from "kopf";

kopf.daemon(
  "kopfexamples",
  { backoff: 3 },
  async function background_sync({ stopped, spec, logger, retry, patch }: kopf.DaemonContext) {
    if (retry < 3) {
      patch.status.message = `Failed ${retry + 1} times.`;
      throw new kopf.TemporaryError("Simulated failure.", { delay: 1 });
    }
    for (let elapsed = 0; !stopped.isSet() && elapsed <= 30; elapsed += 5) {
      logger.info(`=> Ping from a sync daemon: field=${JSON.stringify(spec.field)}, retry=${retry}`);
      await stopped.wait(5);
    }
    patch.status.message = "Accompanying is finished.";
  },
);

kopf.daemon(
  "kopfexamples",
  {
    backoff: 3,
    cancellationBackoff: 1.0,
    cancellationTimeout: 0.5,
    annotations: { someannotation: "somevalue" },
  },
  function background_async({ spec, logger, retry }: kopf.DaemonContext) {
    if (retry < 3) throw new kopf.TemporaryError("Simulated failure.", { delay: 1 });
    // An Effect daemon is interruptible: cancelling it stops it wherever it is (Kopf's CancelledError).
    return Effect.forever(
      Effect.andThen(
        Effect.sync(() => logger.info(`=> Ping from an async daemon: field=${JSON.stringify(spec.field)}`)),
        Effect.sleep("5 seconds"),
      ),
    );
  },
);

/** docs/guide/operations.md: probes for the liveness endpoint, and a cleanup handler. */
import * as kopf from "kopf";

// block: probes
kopf.on.probe(function api_reachable({ memo }) {
  return { lastSeen: memo.lastSeen ?? null };
});

kopf.on.probe(async function database() {
  const response = await fetch("http://database.example:8080/health").catch((error: unknown) => {
    throw new kopf.PermanentError(`the database is unreachable: ${String(error)}`);
  });
  if (!response.ok) throw new kopf.PermanentError(`the database answers ${response.status}`);
  return "ok";
});

// block: cleanup
kopf.on.cleanup(async function flush({ logger }) {
  logger.info("flushing buffers before exit");
});

/** docs/guide/operations.md: probes for the liveness endpoint, and a cleanup handler. */
import * as kopf from "kopf";

// block: probes
kopf.on.probe(function api_reachable({ memo }) {
  return { lastSeen: memo.lastSeen ?? null };
});

kopf.on.probe(async function database() {
  const response = await fetch("http://database.example:8080/health"); // rejects if unreachable
  if (!response.ok) throw new Error(`the database answers ${response.status}`);
  return "ok";
});

// block: cleanup
kopf.on.cleanup(async function flush({ logger }) {
  logger.info("flushing buffers before exit");
});

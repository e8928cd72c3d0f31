/**
 * Kopf's example 15: timers — run every `interval` seconds per object, but only once the object
 * has stayed unchanged for `idle` seconds (any essential change restarts that countdown).
 */
import * as kopf from "kopf";

kopf.timer("kopfexamples", { idle: 5, interval: 2 }, function every_few_seconds_sync({ spec, logger }) {
  logger.info(`Ping from a sync timer: field=${JSON.stringify(spec.field)}`);
});

kopf.timer(
  "kopfexamples",
  { idle: 10, interval: 4 },
  async function every_few_seconds_async({ spec, logger }) {
    logger.info(`Ping from an async timer: field=${JSON.stringify(spec.field)}`);
  },
);

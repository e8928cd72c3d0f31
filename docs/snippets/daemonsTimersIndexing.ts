/** docs/guide/daemons-timers-indexing.md: its TypeScript blocks. */
import { Effect } from "effect";
import * as kopf from "kopf";

// block: daemon
kopf.daemon("kopfexamples", { cancellationTimeout: 10 }, async function monitor({ stopped, name, logger }) {
  while (!stopped.isSet()) {
    // stopped is an AbortSignal too: the request is aborted when the daemon is asked to stop
    const response = await fetch(`https://status.example.com/${name}`, { signal: stopped }).catch(() => null);
    logger.info(`status: ${response?.status ?? "unreachable"}`);
    await stopped.wait(30); // returns early when the daemon is asked to stop
  }
  logger.info(`stopping: ${[...(stopped.reason ?? [])].join(", ")}`);
});

// block: effect daemon
kopf.daemon(
  "kopfexamples",
  { cancellationBackoff: 5, cancellationTimeout: 10 },
  function heartbeat({ logger }) {
    return Effect.forever(
      Effect.andThen(
        Effect.sync(() => logger.info("alive")),
        Effect.sleep("10 seconds"),
      ),
    );
  },
);

// block: timers
kopf.timer(
  "kopfexamples",
  { interval: 60, sharp: true, initialDelay: 5 },
  function reconcile({ spec, patch }) {
    patch.status.observedField = spec.field ?? null;
    return { checked: true }; // status.reconcile.checked
  },
);

kopf.timer("kopfexamples", { idle: 600 }, function settled({ name, logger }) {
  logger.info(`${name} has not changed for 10 minutes`);
});

// block: index
const podsByNode = kopf.indexOf(
  kopf.index("pods", function pods_by_node({ spec, name, namespace }) {
    if (spec.nodeName === undefined) return null; // unscheduled pods are not indexed
    return { [String(spec.nodeName)]: `${namespace}/${name}` };
  }),
); // typed from the function's result: an index of strings by string keys

kopf.timer("kopfexamples", { interval: 30 }, function report(ctx) {
  const pods_by_node = podsByNode.in(ctx); // also ctx.pods_by_node, untyped
  for (const [node, pods] of pods_by_node) {
    ctx.logger.info(`${node}: ${[...pods].join(", ")}`);
  }
  return { nodes: pods_by_node.size };
});

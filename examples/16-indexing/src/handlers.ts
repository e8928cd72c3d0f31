/**
 * Kopf's example 16: in-memory indices. Two index handlers keep an index of all pods — whether
 * each is running, and pod names by label — which every other handler receives by the index's
 * name: the probes of the health endpoint count and list the pods, and a timer writes the running
 * pods of `kube-system` and `default` into each KopfExample's status.
 *
 * Keys of several parts (Python's tuples) are arrays; the indices compare them by value.
 * `kopf.indexOf` gives each index its types from what its function returns.
 */
import * as kopf from "kopf";

const isRunning = kopf.indexOf(
  kopf.index("pods", function is_running({ namespace, name, status }) {
    return new Map([[[namespace, name] as const, status.phase === "Running"]]);
  }),
);

const byLabel = kopf.indexOf(
  kopf.index("pods", function by_label({ labels, name }) {
    return new Map(Object.entries(labels).map(([label, value]) => [[label, value] as const, name]));
  }),
);

kopf.on.probe(function pod_count(ctx) {
  return isRunning.in(ctx).size;
});

kopf.on.probe(function pod_names(ctx) {
  return [...isRunning.in(ctx).keys()].map(([, name]) => name);
});

kopf.timer("kex", { interval: 5 }, function intervalled(ctx) {
  const is_running = isRunning.in(ctx);
  const by_label = byLabel.in(ctx);
  ctx.logger.info(
    `Pods by label: ${JSON.stringify(Object.fromEntries([...by_label].map(([[k, v], names]) => [`${k}=${v}`, [...names].sort()])))}`,
  );
  ctx.patch.status["running-pods"] = [...is_running]
    .filter(([[ns], running]) => ["kube-system", "default"].includes(ns ?? "") && [...running].some(Boolean))
    .map(([[ns, name]]) => `${ns}::${name}`);
});

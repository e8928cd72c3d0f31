/**
 * Kopf's example 13: operator-level hooks. A login handler finds the credentials; startup handlers prepare the operator (one of them
 * fails three times and is retried); every pod seen gets a background task; the probes of the
 * health endpoint (`--liveness`) report how many tasks run and for which pods; the cleanup
 * handler stops them all when the operator exits.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as kopf from "kopf";

/** The stop switches of the background tasks, by namespace and pod name. */
const STOPPERS = new Map<string, Map<string, AbortController>>();

/**
 * Logging in (Kopf's `login_fn`): the pod's service account when in a cluster, else the
 * kubeconfig — what the operator does by itself without login handlers, written out.
 */
export async function login_fn(): Promise<kopf.ConnectionInfo.ConnectionInfo | null> {
  return (await kopf.loginWithServiceAccount()) ?? (await kopf.loginWithKubeconfig());
}
kopf.on.login({ retries: 3 }, login_fn);

kopf.on.startup(async function startup_fn_simple({ logger }) {
  logger.info("Initialising the task registry...");
  STOPPERS.clear();
});

kopf.on.startup(async function startup_fn_retried({ retry, logger }) {
  if (retry < 3) throw new kopf.TemporaryError(`Going to succeed in ${3 - retry}s`, { delay: 1 });
  logger.info("Starting retried...");
});

kopf.on.cleanup(async function cleanup_fn({ logger }) {
  logger.info("Cleaning up...");
  for (const tasks of STOPPERS.values()) for (const stopper of tasks.values()) stopper.abort();
  logger.info("All pod-tasks are requested to stop...");
});

kopf.on.probe(async function tasks_count() {
  return [...STOPPERS.values()].reduce((sum, tasks) => sum + tasks.size, 0);
});

kopf.on.probe(async function monitored_objects() {
  return Object.fromEntries([...STOPPERS].map(([namespace, tasks]) => [namespace, [...tasks.keys()].sort()]));
});

kopf.on.event("pods", async function pod_task({ namespace, name, logger }) {
  if (namespace === undefined || name === undefined) return;
  const tasks = STOPPERS.get(namespace) ?? new Map<string, AbortController>();
  STOPPERS.set(namespace, tasks);
  if (tasks.has(name)) return;
  const stopper = new AbortController();
  tasks.set(name, stopper);
  void serve(logger, stopper.signal);
});

/** A pod's background task: serves every 1–10 seconds until asked to stop. */
const serve = async (logger: kopf.Logger, stopped: AbortSignal): Promise<void> => {
  try {
    while (!stopped.aborted) {
      await sleep(1000 * (1 + Math.floor(Math.random() * 10)), undefined, { signal: stopped });
      logger.info("Served by the background task.");
    }
  } catch {
    // Aborted while sleeping: asked to stop.
  }
};

/**
 * Kopf's example 10: handling built-in resources (Pods). Every pod seen (created, or existing
 * when the operator starts) gets a background task that deletes it after a while (30 seconds, or
 * `$EXAMPLE_10_KILL_AFTER`); deleting the pod earlier cancels its task. Pods of `kube-*`
 * namespaces are left alone.
 */
import * as kopf from "kopf";
import { K8s, kind } from "kubernetes-fluent-client";

/** The running tasks: namespace → name → the task's canceller. */
const tasks = new Map<string, Map<string, AbortController>>();

const killAfter = (): number => Number(process.env.EXAMPLE_10_KILL_AFTER ?? "30");

const sleep = (seconds: number, signal: AbortSignal) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(true), seconds * 1000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });

async function podKiller(
  namespace: string,
  name: string,
  logger: kopf.Logger,
  signal: AbortSignal,
  timeout: number,
) {
  try {
    logger.info(`=== Pod killing happens in ${timeout}s.`);
    if (!(await sleep(timeout, signal))) {
      logger.info("=== Pod killing is cancelled!");
      return;
    }
    logger.info("=== Pod killing happens NOW!");
    await K8s(kind.Pod).InNamespace(namespace).Delete(name);
  } catch (error) {
    logger.error(`=== Pod killing has failed: ${String(error)}`);
  } finally {
    tasks.get(namespace)?.delete(name);
  }
}

async function pod_in_sight({ namespace, name, logger }: kopf.ChangingContext) {
  if (namespace === undefined || name === undefined || namespace.startsWith("kube-")) return;
  const controller = new AbortController();
  if (!tasks.has(namespace)) tasks.set(namespace, new Map());
  tasks.get(namespace)?.set(name, controller);
  void podKiller(namespace, name, logger, controller.signal, killAfter());
}

kopf.on.resume("pods", pod_in_sight);
kopf.on.create("pods", pod_in_sight);

kopf.on.delete("pods", async function pod_deleted({ namespace, name }) {
  if (namespace !== undefined && name !== undefined) tasks.get(namespace)?.get(name)?.abort(); // it also removes the task
});

/**
 * A pod's READY, STATUS and RESTARTS cells, derived from its container states as kube-apiserver's
 * pod printer derives them (the phase or status reason, overridden by a waiting or terminated
 * container's reason, `Terminating` once deleted; restarts with the age of the last one).
 */
import { getPath, isObject, type JsonObject, metaOf, str } from "./Json.ts";

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : []);
const num = (value: unknown): number => (typeof value === "number" ? value : 0);

/** A pod's READY, STATUS and RESTARTS as the real printer derives them from its status. */
export const podState = (pod: JsonObject, since: (timestamp: unknown) => string) => {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const status = isObject(pod.status) ? pod.status : {};
  const restartable = list(spec.initContainers).filter(
    (c) => isObject(c) && c.restartPolicy === "Always",
  ).length;
  const total = list(spec.containers).length + restartable;
  let reason = str(status.reason) || str(status.phase) || "";
  for (const condition of list(status.conditions))
    if (isObject(condition) && condition.type === "PodScheduled" && condition.reason === "SchedulingGated")
      reason = "SchedulingGated";
  let ready = 0;
  let restarts = 0;
  let lastRestart = "";
  let running = false;
  const statuses = list(status.containerStatuses).filter(isObject);
  for (let i = statuses.length - 1; i >= 0; i--) {
    const container = statuses[i] as JsonObject;
    restarts += num(container.restartCount);
    const finished = str(getPath(container, ["lastState", "terminated", "finishedAt"]));
    if (finished !== undefined && finished > lastRestart) lastRestart = finished;
    const waiting = getPath(container, ["state", "waiting"]);
    const terminated = getPath(container, ["state", "terminated"]);
    if (isObject(waiting) && str(waiting.reason)) reason = str(waiting.reason) as string;
    else if (isObject(terminated) && str(terminated.reason)) reason = str(terminated.reason) as string;
    else if (isObject(terminated))
      reason =
        num(terminated.signal) !== 0
          ? `Signal:${num(terminated.signal)}`
          : `ExitCode:${num(terminated.exitCode)}`;
    else if (container.ready === true && isObject(getPath(container, ["state", "running"]))) {
      running = true;
      ready++;
    }
  }
  if (reason === "Completed" && running) {
    const podReady = list(status.conditions).some(
      (c) => isObject(c) && c.type === "Ready" && c.status === "True",
    );
    reason = podReady ? "Running" : "NotReady";
  }
  const phase = str(status.phase);
  if (metaOf(pod).deletionTimestamp !== undefined && status.reason === "NodeLost") reason = "Unknown";
  else if (metaOf(pod).deletionTimestamp !== undefined && phase !== "Succeeded" && phase !== "Failed")
    reason = "Terminating";
  const restartsCell =
    restarts !== 0 && lastRestart !== "" ? `${restarts} (${since(lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, reason, restarts: restartsCell };
};

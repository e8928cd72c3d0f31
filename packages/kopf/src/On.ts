/**
 * `kopf.on`: the registration calls of the default registry (Kopf's `kopf.on.*` decorators),
 * plus the top-level aliases `kopf.daemon`, `kopf.timer` and `kopf.index`. Each call registers
 * in whatever registry is the default at the time of the call, and returns the handler function
 * unchanged. Mistakes throw `RegistrationError` at registration time.
 */
import type { On as Core } from "@kopf/registry";
import type { OperatorSettings, Settings } from "@kopf/settings";
import { getDefaultRegistry } from "./DefaultRegistry.ts";

/** Activities get the operator settings; startup handlers get them mutable (validated after). */
type Calls = Core.On<OperatorSettings, Settings.MutableSettings>;

const delegate = <K extends keyof Calls>(name: K): Calls[K] =>
  ((...args: ReadonlyArray<unknown>) =>
    (getDefaultRegistry().on[name] as unknown as (...a: ReadonlyArray<unknown>) => unknown)(
      ...args,
    )) as Calls[K];

/**
 * The registration calls of the default registry.
 *
 * @example
 * import * as kopf from "kopf"
 * import { kind } from "kubernetes-fluent-client"
 *
 * kopf.on.create("kopfexamples.kopf.dev", function createFn({ spec, logger }) {
 *   logger.info(`Created with ${JSON.stringify(spec)}`)
 * })
 * kopf.on.update(kind.Deployment, { field: "spec.replicas" }, function scaled({ old, new: replicas }) {
 *   return { scaledFrom: old, scaledTo: replicas }
 * })
 * kopf.on.startup({ id: "configure" }, ({ settings }) => {
 *   settings.posting.enabled = false
 * })
 */
export const on: Calls = {
  startup: delegate("startup"),
  cleanup: delegate("cleanup"),
  login: delegate("login"),
  probe: delegate("probe"),
  resume: delegate("resume"),
  create: delegate("create"),
  update: delegate("update"),
  delete: delegate("delete"),
  field: delegate("field"),
  event: delegate("event"),
  index: delegate("index"),
  daemon: delegate("daemon"),
  timer: delegate("timer"),
  validate: delegate("validate"),
  mutate: delegate("mutate"),
};

/** `kopf.daemon` is `kopf.on.daemon`. */
export const daemon: Calls["daemon"] = on.daemon;
/** `kopf.timer` is `kopf.on.timer`. */
export const timer: Calls["timer"] = on.timer;
/** `kopf.index` is `kopf.on.index`. */
export const index: Calls["index"] = on.index;

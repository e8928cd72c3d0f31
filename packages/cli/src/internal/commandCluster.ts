/**
 * Which cluster a `kopf` command talks to: the one the caller injected (`CliIo.kubeApi`: tests,
 * `KopfRunner`), else the live client from `--kubeconfig`/`--context`/`$KUBECONFIG` or
 * in-cluster, logging in with the registry's `on.login` handlers when there are any; for
 * `kopf run`, credentials that can never work are found before the operator starts.
 */
import { type KubeApi, KubeClient, StartupCheck } from "@kopf/client";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Layer from "effect/Layer";
import * as kopf from "kopf";
import type { CliIo } from "../Cli.ts";
import type * as RunArgs from "../RunArgs.ts";

/**
 * The cluster of a command that talks to one: the injected one, else the live client logging in
 * with the registry's `on.login` handlers if there are any, else from
 * `--kubeconfig`/`--context`/`$KUBECONFIG` or in-cluster.
 *
 * @example
 * ```ts
 * Effect.provide(Peering.freeze(options), clusterOf(io, registry, plan.kubeconfig, plan.context))
 * ```
 */
export const clusterOf = (
  io: CliIo,
  registry: kopf.Registry.Registry,
  path: string | undefined,
  context: string | undefined,
): Layer.Layer<KubeApi, unknown> => io.kubeApi ?? kopf.liveCluster(registry, liveOptions(io, path, context));

const liveOptions = (
  io: CliIo,
  path: string | undefined,
  context: string | undefined,
): KubeClient.LiveOptions => ({
  kubeconfig: {
    ...(path !== undefined ? { paths: path } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(io.env !== undefined ? { env: io.env } : {}),
  },
});

/**
 * The cluster of `kopf run`. With the built-in logins, credentials that can never work end the
 * command with one line before the operator starts (see `StartupCheck`); what a retry may fix
 * is left to the operator. The check and the operator share one login (and its plugin cache).
 *
 * @example
 * ```ts
 * const cluster = await runCluster(io, registry, plan) // Exit.succeed(layer), or the check's failure
 * ```
 */
export const runCluster = async (
  io: CliIo,
  registry: kopf.Registry.Registry,
  plan: RunArgs.RunPlan,
): Promise<Exit.Exit<Layer.Layer<KubeApi, unknown>, StartupCheck.StartupError>> => {
  if (io.kubeApi !== undefined || registry.activityHandlers("authentication").length > 0) {
    return Exit.succeed(clusterOf(io, registry, plan.kubeconfig, plan.context));
  }
  const options = liveOptions(io, plan.kubeconfig, plan.context);
  const live = { ...options, login: KubeClient.defaultLogin(options) };
  const checked = await Effect.runPromiseExit(StartupCheck.run(live));
  return Exit.map(checked, () => KubeClient.layer(live));
};

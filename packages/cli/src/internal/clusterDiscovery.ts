/**
 * The resources a running cluster serves (`kopf manifests --kubeconfig/--context`): its
 * discovery, read with the live client as the operator reads it, with the client's log lines
 * dropped (the command's output is the YAML).
 */
import { KubeApi, KubeClient } from "@kopf/client";
import type { Resource } from "@kopf/structs";
import { Discovery } from "@kopf/watcher";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";

/** Which cluster to ask. */
export interface ClusterOptions {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * Every resource of every group the cluster serves.
 *
 * @example
 * ```ts
 * const served = yield* discoverCluster({ context: "kind-kind" })
 * ```
 */
export const discoverCluster = (
  options: ClusterOptions,
): Effect.Effect<ReadonlyArray<Resource.Resource>, unknown> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    return yield* Discovery.scan(api, null);
  }).pipe(
    Effect.provide(
      KubeClient.layer({
        kubeconfig: {
          ...(options.kubeconfig === undefined ? {} : { paths: options.kubeconfig }),
          ...(options.context === undefined ? {} : { context: options.context }),
          ...(options.env === undefined ? {} : { env: options.env }),
        },
      }),
    ),
    Effect.provide(Logger.layer([], { mergeWithExisting: false })),
  );

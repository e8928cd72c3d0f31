/**
 * The options and errors of `KopfRunner` (Kopf's `KopfRunner` arguments, docs/guide/testing.md): how the
 * operator is started (command-line arguments through the CLI's `main`, or a registry), on which
 * cluster, and how long stopping may take.
 */
import type { KubeApi } from "@kopf/client";
import type { Logging, Operator } from "@kopf/runtime";
import type { Settings } from "@kopf/settings";
import * as Data from "effect/Data";
import type * as Layer from "effect/Layer";
import type * as Clusters from "./Clusters.ts";

/** Why the runner failed (besides the operator's own exception, which it exposes). */
export class KopfRunnerError extends Data.TaggedError("KopfRunnerError")<{
  readonly reason: "StillRunning" | "Timeout" | "NotFound";
  readonly message: string;
}> {}

/** What the CLI's `main` gets (a subset of `@kopf/cli`'s `CliIo`). */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly signal?: AbortSignal | undefined;
  readonly kubeApi?: Layer.Layer<KubeApi, unknown> | undefined;
  readonly registry?: Operator.OperatorOptions["registry"] | undefined;
  readonly settings?: Settings.Overrides | undefined;
  readonly onReady?: (() => void) | undefined;
  readonly cwd?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** `@kopf/cli`'s `Cli.main`. */
export type CliMain = (
  argv: ReadonlyArray<string>,
  io: CliIo,
) => Promise<{ readonly exitCode: number; readonly exception: unknown }>;

/** How to run the operator. */
export interface KopfRunnerOptions {
  /** Command-line arguments as for `kopf` (e.g. `["run", "-A", "handlers.ts"]`); needs `cli`. */
  readonly args?: ReadonlyArray<string> | undefined;
  /** The CLI's `main` (`import { Cli } from "@kopf/cli"`; pass `Cli.main`). */
  readonly cli?: CliMain | undefined;
  /** The handlers, when not loaded by `args` (with `args`, files register into it). */
  readonly registry?: Operator.OperatorOptions["registry"] | undefined;
  readonly settings?: Settings.Overrides | undefined;
  /** Without `args`: the namespaces to serve (default: cluster-wide). */
  readonly namespaces?: ReadonlyArray<string> | undefined;
  readonly memo?: Operator.OperatorOptions["memo"];
  /**
   * The cluster: a layer built for this runner and torn down when it stops (default: the one
   * `KOPF_TEST_CLUSTER` names, a fresh in-process emulator when unset, {@link Clusters.selected}), or one built with {@link Clusters.build}
   * and shared by several runners.
   */
  readonly cluster?: Clusters.Cluster | Clusters.Built | undefined;
  /** Without `args`: no peering (default: peering as `kopf run` does, when the CRDs exist). */
  readonly standalone?: boolean | undefined;
  /** Without `args`: the peering object's name, this operator's priority and identity. */
  readonly peeringName?: string | undefined;
  readonly priority?: number | undefined;
  readonly identity?: string | undefined;
  /** Without `args`: the liveness endpoint to serve (e.g. `http://127.0.0.1:8080/healthz`). */
  readonly livenessEndpoint?: string | undefined;
  /** Without `args`: the Prometheus metrics endpoint to serve (e.g. `http://127.0.0.1:9090/metrics`). */
  readonly metricsEndpoint?: string | undefined;
  /** Without `args`: how changing handlers are chosen per cycle (default `asap`). */
  readonly lifecycle?: Operator.OperatorOptions["lifecycle"];
  /** Without `args`: the log format (default `full`, with prefixes). */
  readonly logFormat?: Logging.Format | undefined;
  /** Milliseconds to wait for the stop (default 30 s); then "The operator didn't stop, still running." */
  readonly timeout?: number | undefined;
  /** Throw the operator's exception from `stop()` (default true, as Kopf's `reraise`). */
  readonly reraise?: boolean | undefined;
  /** The directory relative paths (handler files, YAML files) are resolved from. */
  readonly cwd?: string | undefined;
}

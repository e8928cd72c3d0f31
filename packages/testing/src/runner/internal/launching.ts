/**
 * How `KopfRunner` starts the operator: through the CLI's `main` with command-line arguments (as
 * Kopf's runner invokes its Click command), or directly for a registry with the same composition
 * `kopf run` starts — `@kopf/engines`' `Operating.run` (daemons and timers, indices, peering unless
 * standalone) with admission as a root task, and the ambient handler binding (`kopf.subhandler`,
 * `kopf.adopt`…) — in both cases on the runner's cluster, with the output captured and an
 * `AbortSignal` to stop.
 */

import { Admission } from "@kopf/admission";
import type { KubeApi } from "@kopf/client";
import { Operating } from "@kopf/engines";
import { AmbientHandlers, Logging } from "@kopf/runtime";
import * as Cause from "effect/Cause";
import type * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import type { KopfRunnerOptions } from "../KopfRunnerOptions.ts";

/** Where the output goes. */
export interface Sink {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** How the run ended. */
export interface Ended {
  readonly exitCode: number;
  readonly exception: unknown;
}

/** A started operator. */
export interface Launched {
  /** Resolves when it is ready, or has ended before that. */
  readonly ready: Promise<void>;
  readonly done: Promise<Ended>;
}

const byCli = (
  options: KopfRunnerOptions,
  kubeApi: Layer.Layer<KubeApi>,
  signal: AbortSignal,
  sink: Sink,
): Launched => {
  const cli = options.cli;
  if (cli === undefined) throw new TypeError("KopfRunner: `args` need `cli` (pass Cli.main from @kopf/cli).");
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((done) => {
    markReady = done;
  });
  const done = cli(options.args ?? [], {
    ...sink,
    signal,
    kubeApi,
    registry: options.registry,
    settings: options.settings,
    onReady: () => markReady(),
    cwd: options.cwd,
    // No environment: the CLI's KOPF_<COMMAND>_* fallbacks see none (only the arguments count),
    // and what it reads from the environment otherwise (the kubeconfig's) it reads itself.
  }).then(
    (result): Ended => ({ exitCode: result.exitCode, exception: result.exception }),
    (error: unknown): Ended => ({ exitCode: 1, exception: error }),
  );
  void done.then(markReady);
  return { ready, done };
};

const byRegistry = (
  options: KopfRunnerOptions,
  kubeApi: Layer.Layer<KubeApi>,
  signal: AbortSignal,
  sink: Sink,
): Launched => {
  const registry = options.registry;
  if (registry === undefined)
    throw new TypeError("KopfRunner: pass either `args` (with `cli`) or a `registry`.");
  const ready = Deferred.makeUnsafe<void>();
  const write = (line: string) => sink.stderr(`${line}\n`);
  const program = Operating.run({
    registry,
    settings: options.settings,
    namespaces: options.namespaces,
    clusterwide: options.namespaces === undefined || options.namespaces.length === 0 ? true : undefined,
    memo: options.memo,
    standalone: options.standalone,
    peeringName: options.peeringName,
    priority: options.priority,
    identity: options.identity,
    livenessEndpoint: options.livenessEndpoint,
    metricsEndpoint: options.metricsEndpoint,
    lifecycle: options.lifecycle,
    tasks: [Admission.task],
    ready,
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        kubeApi,
        AmbientHandlers.layer,
        Logger.layer([Logging.logger({ format: options.logFormat ?? "full" }, write)], {
          mergeWithExisting: false,
        }),
        Layer.succeed(References.MinimumLogLevel, "Debug"),
      ),
    ),
  );
  const done = Effect.runPromiseExit(program, { signal }).then(
    (exit): Ended =>
      Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
        ? { exitCode: 0, exception: undefined }
        : { exitCode: 1, exception: Cause.squash(exit.cause) },
  );
  return {
    ready: Promise.race([Effect.runPromise(Deferred.await(ready)), done.then(() => undefined)]),
    done,
  };
};

/** Starts the operator as the options say. */
export const launch = (
  options: KopfRunnerOptions,
  context: Context.Context<KubeApi>,
  signal: AbortSignal,
  sink: Sink,
): Launched => {
  const kubeApi = Layer.succeedContext(context);
  return options.args !== undefined
    ? byCli(options, kubeApi, signal, sink)
    : byRegistry(options, kubeApi, signal, sink);
};

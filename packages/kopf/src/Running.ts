/**
 * Running the operator from plain (non-Effect) code (Kopf's `kopf.run` and `kopf.operator`,
 * docs/behaviour/registration.md#running): a Promise API over `@kopf/engines`' `Operating.run` (the runtime with every
 * engine) with `@kopf/admission`'s webhooks as a root task (started when the registry has
 * validating or mutating handlers; without `settings.admission.server`, Kopf's error) and the
 * default lifecycle (`kopf.setDefaultLifecycle`). The handlers come from the default registry unless a registry is given; the cluster from the live client (kubeconfig or
 * in-cluster service account) unless a `KubeApi` layer is given (e.g. the emulator's); log lines
 * go through the runtime's formats as set by {@link configure}. Stopping is an `AbortSignal` (or
 * `stop()`): a graceful stop that lets running handlers finish and runs cleanup handlers.
 */

import { Admission } from "@kopf/admission";
import { type KubeApi, KubeClient } from "@kopf/client";
import { Operating } from "@kopf/engines";
import type { Memo } from "@kopf/registry";
import { Ambient, Logging, Operator, Signals } from "@kopf/runtime";
import type { Settings } from "@kopf/settings";
import * as Cause from "effect/Cause";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { getDefaultLifecycle } from "./DefaultLifecycle.ts";
import { getDefaultRegistry } from "./DefaultRegistry.ts";
import * as Events from "./Events.ts";
import type { Registry } from "./Registry.ts";

/** How the operator logs (Kopf's `kopf.configure` and the CLI's logging options). */
export interface LoggingOptions {
  /** `plain`, `full` (Kopf's CLI default) or `json`. */
  readonly format?: Logging.Format | undefined;
  /** `[namespace/name] ` before object lines; Kopf's `configure()` defaults to off. */
  readonly prefix?: boolean | undefined;
  /** The key of the object reference in JSON lines (default `object`). */
  readonly refkey?: string | undefined;
  /** The lowest level written: `Debug` (`--verbose`), `Info` (default) or `Warn` (`--quiet`). */
  readonly level?: "Debug" | "Info" | "Warn" | "Error" | undefined;
  /** Where lines go (default: `console.error`, i.e. stderr, as Python's logging does). */
  readonly write?: ((line: string) => void) | undefined;
}

let logging: LoggingOptions = { format: "full", prefix: false };

/**
 * Sets how operators started later log (Kopf's `kopf.configure(verbose=..., log_format=...)`).
 *
 * @example
 * kopf.configure({ format: "json", level: "Debug" })
 */
export const configure = (options: LoggingOptions): void => {
  logging = { ...logging, ...options };
};

/** The operator's options in the Promise API. */
export interface OperatorOptions {
  /** The handlers; default: the default registry (`kopf.on.*`). */
  readonly registry?: Registry | undefined;
  /** Settings overrides (e.g. `{ posting: { level: "Warn" } }`). */
  readonly settings?: Settings.Overrides | undefined;
  /** Namespace names or patterns to serve. */
  readonly namespaces?: ReadonlyArray<string> | undefined;
  /** Serve the whole cluster. */
  readonly clusterwide?: boolean | undefined;
  /** The operator-level memo, shallow-copied into every object's memo. */
  readonly memo?: Memo | undefined;
  readonly identity?: string | undefined;
  readonly standalone?: boolean | undefined;
  readonly priority?: number | undefined;
  readonly peeringName?: string | undefined;
  /** One of several replicas: the holder of the Lease handles, the others stand by warm. */
  readonly leaderElection?: boolean | undefined;
  /** One of several replicas, each handling its share of the objects (by uid hash). */
  readonly sharding?: boolean | undefined;
  /** The election's Lease name, or the sharding ring's name (default `kopf`). */
  readonly leaseName?: string | undefined;
  /** The Leases' namespace (default: the served namespace, else `default`). */
  readonly leaseNamespace?: string | undefined;
  readonly livenessEndpoint?: string | undefined;
  /**
   * Serve Prometheus metrics (text format, or OpenMetrics on request) at this URL, e.g.
   * `http://0.0.0.0:9090/metrics`; none by default.
   */
  readonly metricsEndpoint?: string | undefined;
  /** The cluster: a layer providing `KubeApi`; default: the live client. */
  readonly kubeApi?: Layer.Layer<KubeApi, unknown> | undefined;
  /** Logging for this operator; default: what {@link configure} set. */
  readonly logging?: LoggingOptions | undefined;
  /**
   * Aborting it stops the operator gracefully. Without one, SIGINT/SIGTERM stop it (as Kopf does
   * in the main thread); with one, the application decides.
   */
  readonly signal?: AbortSignal | undefined;
}

/** A running operator. */
export interface RunningOperator extends AsyncDisposable {
  /** Resolves once startup handlers succeeded and the watching begins; rejects if it never starts. */
  readonly ready: Promise<void>;
  /** Resolves when the operator has stopped gracefully; rejects with the reason it failed. */
  readonly done: Promise<void>;
  /** Stops gracefully and waits until stopped (also what `await using` does). */
  stop(): Promise<void>;
}

const loggerLayer = (options: LoggingOptions) => {
  const write = options.write ?? ((line: string) => globalThis.console.error(line));
  return Layer.mergeAll(
    Logger.layer(
      [
        Logging.logger(
          { format: options.format ?? "full", prefix: options.prefix, refkey: options.refkey },
          write,
        ),
      ],
      { mergeWithExisting: false },
    ),
    Layer.succeed(References.MinimumLogLevel, options.level ?? "Info"),
  );
};

/**
 * The live cluster of an operator: the registry's `on.login` handlers log in when there are any
 * (as in Kopf, they replace the built-in logins), else the kubeconfig or in-cluster service
 * account (Kopf's fallback logins), with the given connection options.
 *
 * @example
 * ```ts
 * const cluster = liveCluster(registry, { kubeconfig: { paths: "/tmp/kubeconfig" } })
 * ```
 */
export const liveCluster = (
  registry: Registry,
  options: KubeClient.LiveOptions = {},
): Layer.Layer<KubeApi, unknown> =>
  KubeClient.layer(
    registry.activityHandlers("authentication").length > 0
      ? { ...options, login: Operator.login(registry) }
      : options,
  );

/** The program `operator()` runs: the operator with its cluster, logging and ambient handlers. */
export const program = (
  options: OperatorOptions,
  ready: Deferred.Deferred<void>,
  logs: ReturnType<typeof loggerLayer> = loggerLayer({ ...logging, ...options.logging }),
): Effect.Effect<void, unknown> =>
  // The operator with every engine (daemons and timers, indices, peering, liveness endpoint)
  // and admission (a root task: nothing runs without webhook handlers).
  Operating.run({
    registry: registryOf(options),
    settings: options.settings,
    namespaces: options.namespaces,
    clusterwide: options.clusterwide,
    memo: options.memo,
    identity: options.identity,
    standalone: options.standalone,
    priority: options.priority,
    peeringName: options.peeringName,
    leaderElection: options.leaderElection,
    sharding: options.sharding,
    leaseName: options.leaseName,
    leaseNamespace: options.leaseNamespace,
    livenessEndpoint: options.livenessEndpoint,
    metricsEndpoint: options.metricsEndpoint,
    lifecycle: getDefaultLifecycle(),
    tasks: [Admission.task],
    ready,
  }).pipe(
    Effect.provide(
      Layer.unwrap(
        Effect.sync(() => {
          // The client logs too (logins): through the same loggers as the operator.
          const cluster = Layer.provide(options.kubeApi ?? liveCluster(registryOf(options)), logs);
          return Layer.mergeAll(cluster, Layer.succeed(Ambient.AmbientRunner, Events.runner), logs);
        }),
      ),
    ),
  );

const registryOf = (options: OperatorOptions): Registry => options.registry ?? getDefaultRegistry();

const settle = (exit: Exit.Exit<void, unknown>): Promise<void> =>
  Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
    ? Promise.resolve()
    : Promise.reject(Cause.squash(exit.cause));

/**
 * Starts an operator in the background (Kopf's `await kopf.operator(...)`, with the flags as a
 * signal and promises).
 *
 * @example
 * ```ts
 * import * as kopf from "kopf"
 * kopf.on.create("kopfexamples", ({ logger }) => logger.info("Created"))
 * const controller = new AbortController()
 * const operator = kopf.operator({ namespaces: ["default"], signal: controller.signal })
 * await operator.ready      // startup handlers done; handling begins
 * controller.abort()        // or: await operator.stop()
 * await operator.done
 * ```
 */
export const operator = (options: OperatorOptions = {}): RunningOperator => {
  const ready = Deferred.makeUnsafe<void>();
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (options.signal?.aborted === true) abort();
  else options.signal?.addEventListener("abort", abort, { once: true });
  const logs = loggerLayer({ ...logging, ...options.logging });
  let ended: Exit.Exit<void, unknown> | undefined;
  const operating = program(options, ready, logs).pipe(
    Effect.onExit((exit) =>
      Effect.sync(() => {
        ended = exit;
      }),
    ),
  );
  // Without a signal of the application's, SIGINT/SIGTERM stop the operator (as Kopf does in
  // the main thread): Kopf's log lines, a second signal or the ultimate timeout exit at once.
  const running =
    options.signal === undefined
      ? Effect.asVoid(Signals.stopOnSignals(operating)).pipe(Effect.provide(logs))
      : operating;
  const done = Effect.runPromiseExit(running, { signal: controller.signal })
    .then((exit) => {
      options.signal?.removeEventListener("abort", abort);
      return ended ?? exit;
    })
    .then(settle);
  const readyPromise = Promise.race([Effect.runPromise(Deferred.await(ready)), done]);
  // Neither is required to be awaited; a failure is still reported through the awaited one.
  readyPromise.catch(() => undefined);
  done.catch(() => undefined);
  const stop = async () => {
    abort();
    await done;
  };
  return { ready: readyPromise, done, stop, [Symbol.asyncDispose]: stop };
};

/**
 * Runs an operator until stopped (Kopf's `kopf.run()`); resolves after a graceful stop, rejects
 * if it cannot start (e.g. a startup handler failed for good).
 *
 * @example
 * ```ts
 * import * as kopf from "kopf"
 * import "./handlers.ts"
 * const controller = new AbortController()
 * process.once("SIGTERM", () => controller.abort())
 * await kopf.run({ clusterwide: true, signal: controller.signal })
 * ```
 */
export const run = (options: OperatorOptions = {}): Promise<void> => operator(options).done;

/**
 * The `kopf` command (Kopf's Click group, docs/guide/cli.md) on yargs: `kopf run` starts an operator
 * with the handlers of the given files and modules, `kopf emulator` runs the Kubernetes API
 * emulator of `@kopf/emulator`, `kopf freeze`/`kopf resume` pause and resume peered operators,
 * `kopf manifests` prints what an operator needs in a cluster (RBAC, Deployment, CRDs).
 * Everything the command touches comes through {@link CliIo}, so the same code runs as the binary
 * (process streams, signals) and in tests (`KopfRunner`, captured output, an in-process cluster).
 *
 * The emulator is loaded with a dynamic `import()` only when `kopf emulator` runs: an operator
 * started with `kopf run` loads none of it, and `@kopf/emulator` need not even be installed.
 *
 * Exit codes: 0 after a graceful stop or `--help`; 1 when the operator cannot start or its
 * handler files cannot be loaded; 2 for usage errors (unknown flags, `-n` with `-A`, ...).
 */

import { resolve } from "node:path";
import type { KubeApi } from "@kopf/client";
import { Environment, Peering } from "@kopf/engines";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { clusterOf, runCluster } from "./internal/commandCluster.ts";
import { type EmulatorModule, parse } from "./internal/commandLine.ts";
import { messageOf } from "./internal/errorMessage.ts";
import { importOptional } from "./internal/importOptional.ts";
import * as Loading from "./Loading.ts";
import * as ManifestsCommand from "./ManifestsCommand.ts";
import * as PeeringCommands from "./PeeringCommands.ts";
import * as ResourceCommands from "./ResourceCommands.ts";
import * as RunArgs from "./RunArgs.ts";

/** The process-level things the command uses. */
export interface CliIo {
  /** Help and usage output. */
  readonly stdout: (text: string) => void;
  /** Log lines and error messages. */
  readonly stderr: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  readonly cwd?: string | undefined;
  /** Aborting it stops a running command gracefully (SIGINT/SIGTERM in the binary). */
  readonly signal?: AbortSignal | undefined;
  /** How handler files are imported (default `import()`). */
  readonly importer?: Loading.Importer | undefined;
  /** The cluster for `kopf run`; default: the live client from `--kubeconfig`/`--context`. */
  readonly kubeApi?: Layer.Layer<KubeApi, unknown> | undefined;
  /** The registry `kopf run` uses (it also becomes the default registry the files register into). */
  readonly registry?: kopf.Registry.Registry | undefined;
  /** Settings overrides for `kopf run` and `kopf manifests` (under what the flags set). */
  readonly settings?: kopf.Settings.Overrides | undefined;
  /** Told once the operator is ready (startup handlers done). */
  readonly onReady?: (() => void) | undefined;
  /** How `kopf emulator` loads the emulator (default `import("@kopf/emulator")`). */
  readonly loadEmulator?: (() => Promise<EmulatorModule>) | undefined;
}

export type { EmulatorModule } from "./internal/commandLine.ts";

const importEmulator = (): Promise<EmulatorModule> => import("@kopf/emulator");

/** Why `kopf` exited as it did. */
export interface CliResult {
  readonly exitCode: number;
  /** The failure behind a non-zero exit code, if any (a usage error, a load error, a startup failure). */
  readonly exception: unknown;
}

const usage = (io: CliIo, message: string): CliResult => {
  io.stderr(`Error: ${message}\nTry 'kopf --help' for help.\n`);
  return { exitCode: 2, exception: new Error(message) };
};

const exceptionOf = (exit: Exit.Exit<unknown, unknown>): unknown =>
  Exit.isSuccess(exit) ? undefined : Cause.squash(exit.cause);

/** `kopf freeze`/`kopf resume`: write or remove the presence record, then exit. */
const runPeering = async (command: "freeze" | "resume", plan: PeeringCommands.PeeringPlan, io: CliIo) => {
  const program = Effect.gen(function* () {
    const identity = plan.identity ?? (yield* Environment.identity(true));
    const options = { ...plan, identity };
    yield* command === "freeze" ? Peering.freeze(options) : Peering.resume(options);
    return identity;
    // No handler files are loaded here: the built-in logins (kubeconfig or in-cluster).
  }).pipe(Effect.provide(clusterOf(io, kopf.Registry.make(), plan.kubeconfig, plan.context)));
  const exit = await Effect.runPromiseExit(program);
  if (Exit.isFailure(exit)) {
    const error = exceptionOf(exit);
    io.stderr(`Error: ${messageOf(error)}\n`);
    return { exitCode: 1, exception: error };
  }
  const where = plan.clusterwide ? "cluster-wide" : `in ${plan.namespaces.join(", ")}`;
  io.stdout(
    command === "freeze"
      ? `Frozen the peering '${plan.name}' ${where} for ${plan.lifetime}s as ${exit.value} (priority ${plan.priority}).\n`
      : `Resumed the peering '${plan.name}' ${where} for ${exit.value}.\n`,
  );
  return { exitCode: 0, exception: undefined };
};

/** `kopf run --emulator`: the embedded emulator (its module, @kopf/testing and @kopf/emulator load only then). */
const startEmbedded = (files: ReadonlyArray<string>, plan: RunArgs.RunPlan, io: CliIo) => {
  const kubeconfig = resolve(io.cwd ?? ".", plan.kubeconfig ?? ".kopf/kubeconfig");
  return Effect.runPromiseExit(
    importOptional(["@kopf/testing", "@kopf/emulator"], () => import("./Embedded.ts")).pipe(
      Effect.flatMap((Embedded) =>
        Embedded.start(
          files.map((file) => resolve(io.cwd ?? ".", file)),
          kubeconfig,
        ),
      ),
      Effect.tap((embedded) =>
        Effect.sync(() =>
          io.stderr(`Embedded emulator at ${embedded.url}; for kubectl: export KUBECONFIG=${kubeconfig}\n`),
        ),
      ),
    ),
  );
};

/** `kopf run`: load the handlers, then run the operator until stopped. */
const runOperator = async (plan: RunArgs.RunPlan, io: CliIo): Promise<CliResult> => {
  const registry = io.registry ?? kopf.Registry.make();
  kopf.setDefaultRegistry(registry);
  const loaded = await Effect.runPromiseExit(
    Loading.load({ paths: plan.paths, modules: plan.modules, cwd: io.cwd, importer: io.importer }),
  );
  if (Exit.isFailure(loaded)) {
    const error = exceptionOf(loaded);
    io.stderr(`Error: ${messageOf(error)}\n`);
    return { exitCode: 1, exception: error };
  }
  const started = plan.emulator === undefined ? undefined : await startEmbedded(plan.emulator, plan, io);
  if (started !== undefined && Exit.isFailure(started)) {
    const error = exceptionOf(started);
    io.stderr(`Error: the embedded emulator did not start: ${messageOf(error)}\n`);
    return { exitCode: 1, exception: error };
  }
  const embedded = started === undefined ? undefined : started.value;
  const cluster =
    embedded === undefined ? await runCluster(io, registry, plan) : Exit.succeed(embedded.kubeApi);
  if (Exit.isFailure(cluster)) {
    const error = exceptionOf(cluster);
    io.stderr(`Error: ${messageOf(error)}\n`);
    return { exitCode: 1, exception: error };
  }
  const operator = kopf.operator({
    registry,
    settings: io.settings,
    namespaces: plan.namespaces,
    clusterwide: plan.clusterwide && !plan.implicitClusterwide ? true : undefined,
    standalone: plan.standalone,
    priority: plan.priority,
    peeringName: plan.peeringName,
    leaderElection: plan.leaderElection,
    sharding: plan.sharding,
    leaseName: plan.leaseName,
    leaseNamespace: plan.leaseNamespace,
    livenessEndpoint: plan.liveness,
    metricsEndpoint: plan.metrics,
    kubeApi: cluster.value,
    logging: {
      format: plan.logging.format,
      prefix: plan.logging.prefix,
      refkey: plan.logging.refkey,
      level: plan.logging.level,
      write: (line) => io.stderr(`${line}\n`),
    },
    signal: io.signal,
  });
  operator.ready.then(
    () => io.onReady?.(),
    () => undefined,
  );
  try {
    await operator.done;
    return { exitCode: 0, exception: undefined };
  } catch (error) {
    io.stderr(`Error: ${messageOf(error)}\n`);
    return { exitCode: 1, exception: error };
  } finally {
    await embedded?.close();
  }
};

/** `kopf crd` / `kopf types` / `kopf manifests`: print (or write) what they generate. */
const runResources = async (
  command: "crd" | "types" | "manifests",
  args: Record<string, unknown>,
  io: CliIo,
) => {
  const options = { cwd: io.cwd, importer: io.importer, env: io.env, settings: io.settings };
  const exit = await Effect.runPromiseExit<string, unknown>(
    command === "crd"
      ? ResourceCommands.crd(args as ResourceCommands.CrdArgs, options)
      : command === "manifests"
        ? ManifestsCommand.run(args as ManifestsCommand.ManifestsArgs, options)
        : ResourceCommands.types(args as unknown as ResourceCommands.TypesArgs, { cwd: io.cwd }),
  );
  if (Exit.isSuccess(exit)) {
    io.stdout(exit.value);
    return { exitCode: 0, exception: undefined };
  }
  const error = exceptionOf(exit);
  io.stderr(`Error: ${messageOf(error)}\n`);
  return { exitCode: 1, exception: error };
};

/** Loads `@kopf/emulator` for `kopf emulator`; a clear error when it is not installed. */
const loadEmulator = async (io: CliIo): Promise<Result.Result<EmulatorModule, Error>> => {
  try {
    return Result.succeed(await (io.loadEmulator ?? importEmulator)());
  } catch (cause) {
    const message =
      `kopf emulator needs the package @kopf/emulator, which could not be loaded (${messageOf(cause)}); ` +
      "install it next to kopf (npm install --save-dev @kopf/emulator)";
    return Result.fail(new Error(message, { cause }));
  }
};

/** `kopf emulator`: serve until stopped. */
const runEmulator = async (
  emulator: EmulatorModule,
  argv: ReadonlyArray<string>,
  io: CliIo,
): Promise<CliResult> => {
  const program = emulator.EmulatorCommand.parse(argv.slice(1)).pipe(
    Effect.flatMap(emulator.EmulatorMain.run),
  );
  const exit = await Effect.runPromiseExit(program, { signal: io.signal });
  if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause))
    return { exitCode: 0, exception: undefined };
  const error = exceptionOf(exit);
  io.stderr(`Error: ${messageOf(error)}\n`);
  return { exitCode: 1, exception: error };
};

/**
 * Runs the `kopf` command line (without the program name) to its end.
 *
 * @example
 * ```ts
 * const controller = new AbortController()
 * const result = await Cli.main(["run", "-n", "default", "handlers.ts"], {
 *   stdout: (t) => process.stdout.write(t),
 *   stderr: (t) => process.stderr.write(t),
 *   signal: controller.signal,
 * })
 * process.exitCode = result.exitCode
 * ```
 */
export const main = async (argv: ReadonlyArray<string>, io: CliIo): Promise<CliResult> => {
  let emulator: EmulatorModule | undefined;
  if (argv[0] === "emulator") {
    const loaded = await loadEmulator(io);
    if (Result.isFailure(loaded)) {
      io.stderr(`Error: ${loaded.failure.message}\n`);
      return { exitCode: 1, exception: loaded.failure };
    }
    emulator = loaded.success;
  }
  const parsed = await parse(argv, emulator);
  if (parsed.error !== undefined) return usage(io, parsed.error.message);
  if (parsed.args.help === true || parsed.args.version === true) {
    io.stdout(parsed.output.endsWith("\n") ? parsed.output : `${parsed.output}\n`);
    return { exitCode: 0, exception: undefined };
  }
  const command = String((parsed.args._ as ReadonlyArray<unknown>)[0]);
  if (command === "emulator") {
    if (emulator === undefined) return usage(io, "options go after the command: kopf emulator [options]");
    return runEmulator(emulator, argv, io);
  }
  if (command === "crd" || command === "types" || command === "manifests")
    return runResources(command, parsed.args, io);
  if (command === "freeze" || command === "resume") {
    const peering = PeeringCommands.plan(command, parsed.args as PeeringCommands.PeeringArgs, io.env ?? {});
    if (Result.isFailure(peering)) return usage(io, peering.failure.message);
    return runPeering(command, peering.success, io);
  }
  const plan = RunArgs.plan(parsed.args as RunArgs.ParsedRunArgs, io.env ?? {});
  if (Result.isFailure(plan)) return usage(io, plan.failure.message);
  return runOperator(plan.success, io);
};

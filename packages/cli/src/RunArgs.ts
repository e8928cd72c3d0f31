/**
 * The options of `kopf run` (Kopf's `kopf run` command, docs/guide/cli.md): their yargs
 * definitions (`internal/runFlags.ts`, re-exported here), the `KOPF_RUN_*` environment fallbacks
 * (Click's `auto_envvar_prefix`, read by `internal/runEnv.ts`), and the pure translation of parsed
 * arguments into a {@link RunPlan}: what to load, what to serve, the settings overrides (through
 * `RunOptions.forRun`) and how to log.
 */
import { RunOptions, type Settings } from "@kopf/settings";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import { type Env, envBoolean, envString, envWords } from "./internal/runEnv.ts";
import { FORMATS, type Format, SHARD_WATCHES, type ShardWatch } from "./internal/runFlags.ts";

export { configure, FORMATS, type Format, SHARD_WATCHES, type ShardWatch } from "./internal/runFlags.ts";

/** Why the arguments of `kopf run` cannot be used. */
export class RunArgsError extends Data.TaggedError("RunArgsError")<{
  readonly reason: "MutuallyExclusive" | "BadValue" | "NothingToRun";
  readonly message: string;
}> {}

/** The minimum level of the operator's log lines. */
export type LogLevel = "Debug" | "Info" | "Warn";

/** How the operator logs (the logging options every Kopf command has). */
export interface LoggingPlan {
  readonly format: Format;
  /** `--log-prefix/--no-log-prefix`; unset means Kopf's default (on for plain/full, off for json). */
  readonly prefix: boolean | undefined;
  readonly refkey: string | undefined;
  readonly level: LogLevel;
  /** `--debug`: also the framework's own internals (the level is `Debug`, as with `--verbose`). */
  readonly debug: boolean;
}

/** Everything `kopf run` needs to start the operator. */
export interface RunPlan {
  readonly paths: ReadonlyArray<string>;
  readonly modules: ReadonlyArray<string>;
  readonly namespaces: ReadonlyArray<string>;
  readonly clusterwide: boolean;
  /** Neither `-n` nor `-A` was given: cluster-wide, with Kopf's warning. */
  readonly implicitClusterwide: boolean;
  readonly overrides: Settings.Overrides;
  readonly standalone: boolean | undefined;
  readonly priority: number | undefined;
  readonly peeringName: string | undefined;
  readonly leaderElection: boolean | undefined;
  readonly sharding: boolean | undefined;
  readonly leaseName: string | undefined;
  readonly leaseNamespace: string | undefined;
  /** `--shard-watch`: what a sharded replica watches (`settings.scaling.watch`). */
  readonly shardWatch: ShardWatch | undefined;
  readonly liveness: string | undefined;
  /** The Prometheus metrics endpoint (`--metrics`), e.g. `http://0.0.0.0:9090/metrics`. */
  readonly metrics: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
  /** `--emulator FILE...`: run against an embedded emulator with these files applied (development). */
  readonly emulator: ReadonlyArray<string> | undefined;
  readonly logging: LoggingPlan;
}

/** The arguments as yargs parses them (before the environment fallbacks). */
export interface ParsedRunArgs {
  readonly paths?: ReadonlyArray<string | number> | undefined;
  readonly module?: ReadonlyArray<string> | undefined;
  readonly namespace?: ReadonlyArray<string> | undefined;
  readonly "all-namespaces"?: boolean | undefined;
  readonly standalone?: boolean | undefined;
  readonly dev?: boolean | undefined;
  readonly priority?: number | undefined;
  readonly peering?: string | undefined;
  readonly "leader-election"?: boolean | undefined;
  readonly sharding?: boolean | undefined;
  readonly "lease-name"?: string | undefined;
  readonly "lease-namespace"?: string | undefined;
  readonly "shard-watch"?: string | undefined;
  readonly liveness?: string | undefined;
  readonly metrics?: string | undefined;
  readonly verbose?: boolean | undefined;
  readonly debug?: boolean | undefined;
  readonly quiet?: boolean | undefined;
  readonly "log-format"?: string | undefined;
  readonly "log-prefix"?: boolean | undefined;
  readonly "log-refkey"?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly emulator?: ReadonlyArray<string> | undefined;
}

/** A refusal of the arguments, as `plan` fails with it. */
const refuse = (reason: RunArgsError["reason"], message: string) =>
  Result.fail(new RunArgsError({ reason, message }));

/**
 * The plan of a `kopf run` invocation: the command line first, then `KOPF_RUN_*` variables, then
 * Kopf's defaults. `-n` and `-A` together are a usage error, as are values that make no sense.
 *
 * @example
 * ```ts
 * RunArgs.plan({ paths: ["handlers.ts"], namespace: ["default"] }, {})
 * // Result.succeed({ paths: ["handlers.ts"], namespaces: ["default"], clusterwide: false, ... })
 * ```
 */
export const plan = (args: ParsedRunArgs, env: Env = {}): Result.Result<RunPlan, RunArgsError> =>
  Result.gen(function* () {
    const bool = (option: keyof ParsedRunArgs & string, given: boolean | undefined) =>
      given !== undefined
        ? Result.succeed(given)
        : Result.mapError(
            envBoolean(env, option),
            (message) => new RunArgsError({ reason: "BadValue", message }),
          );
    const namespaces = [
      ...(args.namespace ?? []),
      ...(args.namespace === undefined
        ? [...envWords(env, "namespaces"), ...envWords(env, "namespace")]
        : []),
    ];
    const allNamespaces = (yield* bool("all-namespaces", args["all-namespaces"])) ?? false;
    if (allNamespaces && namespaces.length > 0) {
      return yield* refuse(
        "MutuallyExclusive",
        "Either --namespace or --all-namespaces can be used, not both.",
      );
    }
    const paths = (args.paths ?? []).map(String);
    const modules = [...(args.module ?? (args.module === undefined ? envWords(env, "modules") : []))];
    if (paths.length === 0 && modules.length === 0) {
      return yield* refuse(
        "NothingToRun",
        "Nothing to run: pass handler files (kopf run handlers.ts) or modules (-m my-operator).",
      );
    }
    const priorityText = args.priority ?? envString(env, "priority");
    const priority = priorityText === undefined ? undefined : Number(priorityText);
    if (priority !== undefined && !Number.isInteger(priority)) {
      return yield* refuse("BadValue", `--priority must be an integer, got ${String(priorityText)}`);
    }
    const format = args["log-format"] ?? envString(env, "log-format") ?? "full";
    if (!(FORMATS as ReadonlyArray<string>).includes(format)) {
      return yield* refuse("BadValue", `--log-format must be one of ${FORMATS.join(", ")}, got ${format}`);
    }
    const endpoint = (flag: "liveness" | "metrics", value: string | undefined) =>
      value !== undefined && !value.startsWith("http://")
        ? refuse("BadValue", `Unsupported scheme of --${flag} ${value}: only http:// endpoints are served.`)
        : Result.succeed(value);
    const liveness = yield* endpoint("liveness", args.liveness ?? envString(env, "liveness"));
    const metrics = yield* endpoint("metrics", args.metrics ?? envString(env, "metrics"));
    const standalone = yield* bool("standalone", args.standalone);
    const dev = (yield* bool("dev", args.dev)) ?? false;
    const peeringName = args.peering ?? envString(env, "peering");
    const verbose = (yield* bool("verbose", args.verbose)) ?? false;
    const debug = (yield* bool("debug", args.debug)) ?? false;
    const quiet = (yield* bool("quiet", args.quiet)) ?? false;
    const effectivePriority = dev ? RunOptions.DEV_PRIORITY : priority;
    const context = args.context ?? envString(env, "context");
    if (args.emulator !== undefined && context !== undefined) {
      return yield* refuse("MutuallyExclusive", "Either --emulator or --context can be used, not both.");
    }
    const leaderElection = yield* bool("leader-election", args["leader-election"]);
    const sharding = yield* bool("sharding", args.sharding);
    if (leaderElection === true && sharding === true) {
      return yield* refuse(
        "MutuallyExclusive",
        "Either --leader-election or --sharding can be used, not both.",
      );
    }
    const leaseName = args["lease-name"] ?? envString(env, "lease-name");
    const leaseNamespace = args["lease-namespace"] ?? envString(env, "lease-namespace");
    const shardWatchText = args["shard-watch"] ?? envString(env, "shard-watch");
    if (shardWatchText !== undefined && !(SHARD_WATCHES as ReadonlyArray<string>).includes(shardWatchText)) {
      return yield* refuse(
        "BadValue",
        `--shard-watch must be one of ${SHARD_WATCHES.join(", ")}, got ${shardWatchText}`,
      );
    }
    const shardWatch = shardWatchText as ShardWatch | undefined;
    return {
      paths,
      modules,
      namespaces,
      clusterwide: allNamespaces || namespaces.length === 0,
      implicitClusterwide: !allNamespaces && namespaces.length === 0,
      overrides: RunOptions.forRun({
        clusterwide: allNamespaces || namespaces.length === 0,
        peeringName,
        standalone,
        priority,
        dev,
        leaderElection,
        sharding,
        leaseName,
        leaseNamespace,
        shardWatch,
      }),
      standalone,
      priority: effectivePriority,
      peeringName,
      leaderElection,
      sharding,
      leaseName,
      leaseNamespace,
      shardWatch,
      liveness,
      metrics,
      kubeconfig: args.kubeconfig ?? envString(env, "kubeconfig"),
      context,
      emulator: args.emulator,
      logging: {
        format: format as Format,
        prefix: yield* bool("log-prefix", args["log-prefix"]),
        refkey: args["log-refkey"] ?? envString(env, "log-refkey"),
        level: debug || verbose ? "Debug" : quiet ? "Warn" : "Info",
        debug,
      },
    };
  });

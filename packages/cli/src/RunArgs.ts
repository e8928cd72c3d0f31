/**
 * The options of `kopf run` (Kopf's `kopf run` command, docs/guide/cli.md): their yargs definitions, the
 * `KOPF_RUN_*` environment fallbacks (Click's `auto_envvar_prefix`, read by `internal/runEnv.ts`),
 * and the pure translation of parsed arguments into a {@link RunPlan}: what to load, what to
 * serve, the settings overrides (through `RunOptions.forRun`) and how to log.
 */
import { RunOptions, type Settings } from "@kopf/settings";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import type { Argv } from "yargs";
import { type Env, envBoolean, envString, envWords } from "./internal/runEnv.ts";

/** Why the arguments of `kopf run` cannot be used. */
export class RunArgsError extends Data.TaggedError("RunArgsError")<{
  readonly reason: "MutuallyExclusive" | "BadValue" | "NothingToRun";
  readonly message: string;
}> {}

/** The log formats of `--log-format` (the runtime's `Logging.Format`). */
export type Format = "plain" | "full" | "json";

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

/** What a sharded replica watches (`settings.scaling.watch`). */
export type ShardWatch = "auto" | "own-shards" | "all";

/** The values `--shard-watch` accepts. */
export const SHARD_WATCHES: ReadonlyArray<ShardWatch> = ["auto", "own-shards", "all"];

/** The log formats `--log-format` accepts. */
export const FORMATS: ReadonlyArray<Format> = ["plain", "full", "json"];

/**
 * Adds the options of `kopf run` to a yargs command (no defaults: unset options fall back to the
 * environment in {@link plan}).
 *
 * @example
 * ```ts
 * yargs(argv).command("run [paths..]", "Start an operator process", RunArgs.configure, handler)
 * ```
 */
export const configure = <T>(argv: Argv<T>) =>
  argv
    .positional("paths", {
      type: "string",
      array: true,
      describe: "handler files (.ts, .js, .mjs) to load, in order",
    })
    .option("module", {
      alias: "m",
      type: "string",
      array: true,
      nargs: 1, // one value per flag (as Kopf's click options): `-m mod handlers.ts` keeps the file
      describe: "importable module to load; repeatable",
    })
    .option("namespace", {
      alias: "n",
      type: "string",
      array: true,
      nargs: 1, // one value per flag: `-n default handlers.ts` keeps the file a handler file
      describe: "namespace or glob pattern to serve (e.g. 'ns-*', '!ns-x'); repeatable",
    })
    .option("all-namespaces", { alias: "A", type: "boolean", describe: "serve the whole cluster" })
    .option("standalone", { type: "boolean", describe: "do not peer with other operators" })
    .option("dev", { type: "boolean", describe: "development mode: priority 666" })
    .option("priority", { alias: "p", type: "number", describe: "this operator's priority among peers" })
    .option("peering", {
      alias: "P",
      type: "string",
      describe: "peering object's name; makes peering mandatory",
    })
    .option("leader-election", {
      type: "boolean",
      describe: "run as one of several replicas: the holder of a Lease handles, the others stand by",
    })
    .option("sharding", {
      type: "boolean",
      describe: "run as one of several replicas, each handling its share of the objects",
    })
    .option("lease-name", {
      type: "string",
      describe: "the Lease of --leader-election, or the ring name of --sharding (default: kopf)",
    })
    .option("lease-namespace", {
      type: "string",
      describe: "the namespace of the Leases (default: the served namespace, else default)",
    })
    .option("shard-watch", {
      type: "string",
      choices: SHARD_WATCHES as Array<ShardWatch>,
      describe:
        "what a --sharding replica watches: own-shards, all, or auto (own shards unless the resource has index handlers; default)",
    })
    .option("liveness", {
      alias: "L",
      type: "string",
      describe: "liveness endpoint, e.g. http://0.0.0.0:8080/healthz",
    })
    .option("metrics", {
      type: "string",
      describe: "Prometheus metrics endpoint, e.g. http://0.0.0.0:9090/metrics",
    })
    .option("verbose", { alias: "v", type: "boolean", describe: "log debug messages" })
    .option("debug", {
      alias: "d",
      type: "boolean",
      describe: "log debug messages, including the framework's internals",
    })
    .option("quiet", { alias: "q", type: "boolean", describe: "log warnings and errors only" })
    .option("log-format", {
      type: "string",
      choices: FORMATS as Array<Format>,
      describe: "log format (default: full)",
    })
    .option("log-prefix", {
      type: "boolean",
      describe: "prefix object lines with [namespace/name] (default: on, off for json)",
    })
    .option("log-refkey", {
      type: "string",
      describe: "key of the object reference in JSON lines (default: object)",
    })
    .option("kubeconfig", {
      type: "string",
      describe: "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)",
    })
    .option("context", { type: "string", describe: "kubeconfig context to use" })
    .option("emulator", {
      type: "string",
      array: true,
      nargs: 1,
      describe:
        "development: serve an embedded Kubernetes API emulator (from @kopf/testing) with this YAML " +
        "file (CRDs, objects) applied, write its kubeconfig to --kubeconfig (default " +
        ".kopf/kubeconfig), and run against it; repeatable",
    })
    .epilog(
      "Every option can also come from the environment as KOPF_RUN_<OPTION> " +
        "(e.g. KOPF_RUN_NAMESPACES='ns1 ns2', KOPF_RUN_STANDALONE=true, KOPF_RUN_LOG_FORMAT=json).",
    );

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
      return yield* Result.fail(
        new RunArgsError({
          reason: "MutuallyExclusive",
          message: "Either --namespace or --all-namespaces can be used, not both.",
        }),
      );
    }
    const paths = (args.paths ?? []).map(String);
    const modules = [...(args.module ?? (args.module === undefined ? envWords(env, "modules") : []))];
    if (paths.length === 0 && modules.length === 0) {
      return yield* Result.fail(
        new RunArgsError({
          reason: "NothingToRun",
          message: "Nothing to run: pass handler files (kopf run handlers.ts) or modules (-m my-operator).",
        }),
      );
    }
    const priorityText = args.priority ?? envString(env, "priority");
    const priority = priorityText === undefined ? undefined : Number(priorityText);
    if (priority !== undefined && !Number.isInteger(priority)) {
      return yield* Result.fail(
        new RunArgsError({
          reason: "BadValue",
          message: `--priority must be an integer, got ${String(priorityText)}`,
        }),
      );
    }
    const format = args["log-format"] ?? envString(env, "log-format") ?? "full";
    if (!(FORMATS as ReadonlyArray<string>).includes(format)) {
      return yield* Result.fail(
        new RunArgsError({
          reason: "BadValue",
          message: `--log-format must be one of ${FORMATS.join(", ")}, got ${format}`,
        }),
      );
    }
    const endpoint = (flag: "liveness" | "metrics", value: string | undefined) =>
      value !== undefined && !value.startsWith("http://")
        ? Result.fail(
            new RunArgsError({
              reason: "BadValue",
              message: `Unsupported scheme of --${flag} ${value}: only http:// endpoints are served.`,
            }),
          )
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
      return yield* Result.fail(
        new RunArgsError({
          reason: "MutuallyExclusive",
          message: "Either --emulator or --context can be used, not both.",
        }),
      );
    }
    const leaderElection = yield* bool("leader-election", args["leader-election"]);
    const sharding = yield* bool("sharding", args.sharding);
    if (leaderElection === true && sharding === true) {
      return yield* Result.fail(
        new RunArgsError({
          reason: "MutuallyExclusive",
          message: "Either --leader-election or --sharding can be used, not both.",
        }),
      );
    }
    const leaseName = args["lease-name"] ?? envString(env, "lease-name");
    const leaseNamespace = args["lease-namespace"] ?? envString(env, "lease-namespace");
    const shardWatchText = args["shard-watch"] ?? envString(env, "shard-watch");
    if (shardWatchText !== undefined && !(SHARD_WATCHES as ReadonlyArray<string>).includes(shardWatchText)) {
      return yield* Result.fail(
        new RunArgsError({
          reason: "BadValue",
          message: `--shard-watch must be one of ${SHARD_WATCHES.join(", ")}, got ${shardWatchText}`,
        }),
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

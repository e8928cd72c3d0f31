/**
 * The command line of `kopf run` on yargs: its positional handler files and its options, with the
 * values `--log-format` and `--shard-watch` accept. `RunArgs` re-exports them.
 */
import type { Argv } from "yargs";

/** The log formats of `--log-format` (the runtime's `Logging.Format`). */
export type Format = "plain" | "full" | "json";

/** What a sharded replica watches (`settings.scaling.watch`). */
export type ShardWatch = "auto" | "own-shards" | "all";

/** The values `--shard-watch` accepts. */
export const SHARD_WATCHES: ReadonlyArray<ShardWatch> = ["auto", "own-shards", "all"];

/** The log formats `--log-format` accepts. */
export const FORMATS: ReadonlyArray<Format> = ["plain", "full", "json"];

/**
 * Adds the options of `kopf run` to a yargs command (no defaults: unset options fall back to the
 * environment in `RunArgs.plan`).
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

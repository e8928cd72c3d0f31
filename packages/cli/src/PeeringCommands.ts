/**
 * `kopf freeze` and `kopf resume` (Kopf's CLI commands, docs/guide/cli.md): pausing the operators of a
 * peering from the command line. `freeze` writes a presence record for a manual identity
 * (`user@host`, or `--id`) with a priority (default 100, 666 with `--dev`) and a lifetime into the
 * peering objects of the served namespaces (or cluster-wide), so operators with lower or equal
 * priorities pause until it expires; `resume` removes that record. The work is `@kopf/engines`'
 * `Peering.freeze`/`resume`; this module parses the options (also from `KOPF_FREEZE_*` and
 * `KOPF_RESUME_*`) into its arguments.
 */
import { RunOptions } from "@kopf/settings";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import type { Argv } from "yargs";

/** Why the options of `freeze`/`resume` cannot be used. */
export class PeeringArgsError extends Data.TaggedError("PeeringArgsError")<{
  readonly reason: "MutuallyExclusive" | "Missing" | "BadValue";
  readonly message: string;
}> {}

/** The parsed options. */
export interface PeeringArgs {
  readonly namespace?: ReadonlyArray<string> | undefined;
  readonly "all-namespaces"?: boolean | undefined;
  readonly id?: string | undefined;
  readonly dev?: boolean | undefined;
  readonly peering?: string | undefined;
  readonly priority?: number | undefined;
  readonly lifetime?: number | undefined;
  readonly message?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
}

/** What to do. */
export interface PeeringPlan {
  /** `undefined`: the manual identity of this user and host. */
  readonly identity: string | undefined;
  readonly name: string;
  readonly clusterwide: boolean;
  readonly namespaces: ReadonlyArray<string>;
  readonly priority: number;
  /** Seconds (`freeze` only; 0 for `resume`). */
  readonly lifetime: number;
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
}

/**
 * Adds the options of `kopf freeze` (or, without priority and lifetime, `kopf resume`).
 *
 * @example
 * ```ts
 * yargs(argv).command("freeze", "Freeze the resource handling in the cluster.", (y) => PeeringCommands.configure(y, "freeze"))
 * ```
 */
export const configure = <T>(argv: Argv<T>, command: "freeze" | "resume") => {
  const common = argv
    .option("namespace", {
      alias: "n",
      type: "string",
      array: true,
      nargs: 1, // one value per flag, as Kopf's click options
      describe: "namespace to freeze; repeatable",
    })
    .option("all-namespaces", { alias: "A", type: "boolean", describe: "freeze cluster-wide" })
    .option("id", { alias: "i", type: "string", describe: "the identity to freeze as (default: user@host)" })
    .option("peering", { alias: "P", type: "string", describe: "the peering object's name (required)" })
    .option("kubeconfig", { type: "string", describe: "kubeconfig file" })
    .option("context", { type: "string", describe: "kubeconfig context to use" });
  return command === "resume"
    ? common
    : common
        .option("dev", { type: "boolean", describe: "priority 666" })
        .option("priority", { alias: "p", type: "number", describe: "the freezing priority (default 100)" })
        .option("lifetime", { alias: "t", type: "number", describe: "seconds the freeze lasts (required)" })
        .option("message", {
          alias: "m",
          type: "string",
          describe: "a message (accepted, unused, as in Kopf)",
        });
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The plan of a `freeze`/`resume` invocation: flags first, then `KOPF_<COMMAND>_*` variables.
 *
 * @example
 * ```ts
 * PeeringCommands.plan("freeze", { peering: "default", lifetime: 600, "all-namespaces": true }, {})
 * // Result.succeed({ name: "default", clusterwide: true, priority: 100, lifetime: 600, ... })
 * ```
 */
export const plan = (
  command: "freeze" | "resume",
  args: PeeringArgs,
  env: Env = {},
): Result.Result<PeeringPlan, PeeringArgsError> => {
  const prefix = `KOPF_${command.toUpperCase()}_`;
  const fromEnv = (name: string) => {
    const value = env[`${prefix}${name}`];
    return value === undefined || value === "" ? undefined : value;
  };
  const namespaces =
    args.namespace ?? (fromEnv("NAMESPACES") ?? "").split(/\s+/).filter((word) => word !== "");
  const clusterwide =
    args["all-namespaces"] ?? ["1", "true", "yes", "on"].includes(fromEnv("ALL_NAMESPACES") ?? "");
  if (clusterwide && namespaces.length > 0) {
    return Result.fail(
      new PeeringArgsError({
        reason: "MutuallyExclusive",
        message: "Either --namespace or --all-namespaces can be used, not both.",
      }),
    );
  }
  const name = args.peering ?? fromEnv("PEERING");
  if (name === undefined) {
    return Result.fail(
      new PeeringArgsError({ reason: "Missing", message: `Missing option --peering (or ${prefix}PEERING).` }),
    );
  }
  const lifetimeText = args.lifetime ?? fromEnv("LIFETIME");
  const lifetime = command === "resume" ? 0 : Number(lifetimeText);
  if (command === "freeze" && (lifetimeText === undefined || !Number.isFinite(lifetime) || lifetime <= 0)) {
    return Result.fail(
      new PeeringArgsError({
        reason: lifetimeText === undefined ? "Missing" : "BadValue",
        message:
          lifetimeText === undefined
            ? "Missing option --lifetime (seconds the freeze lasts)."
            : `--lifetime must be a positive number of seconds, got ${String(lifetimeText)}`,
      }),
    );
  }
  const priority =
    args.dev === true ? RunOptions.DEV_PRIORITY : Number(args.priority ?? fromEnv("PRIORITY") ?? 100);
  if (!Number.isInteger(priority)) {
    return Result.fail(
      new PeeringArgsError({
        reason: "BadValue",
        message: `--priority must be an integer, got ${String(args.priority)}`,
      }),
    );
  }
  return Result.succeed({
    identity: args.id ?? fromEnv("ID"),
    name,
    clusterwide: clusterwide || namespaces.length === 0,
    namespaces,
    priority,
    lifetime,
    kubeconfig: args.kubeconfig ?? fromEnv("KUBECONFIG"),
    context: args.context ?? fromEnv("CONTEXT"),
  });
};

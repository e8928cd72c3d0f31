/**
 * How the options of `kopf run` and `kopf freeze` map onto settings (Kopf's `running.run` and
 * `cli.freeze`): the peering mode follows the run mode, `--peering NAME` makes peering mandatory,
 * and `--dev` means priority 666 whatever `--priority` says.
 */
import type { Overrides } from "./Settings.ts";

/** The priority `--dev` stands for. */
export const DEV_PRIORITY = 666;

/** The settings-related options of `kopf run`. */
export interface RunOptions {
  /** `-A/--all-namespaces`: serve (and peer) cluster-wide. Unset means namespaced. */
  readonly clusterwide?: boolean | undefined;
  /** `-P/--peering NAME`: the peering object's name; makes peering mandatory. */
  readonly peeringName?: string | undefined;
  /** `--standalone`: disable peering; unset leaves the setting as it is. */
  readonly standalone?: boolean | undefined;
  /** `-p/--priority`: this operator's priority. */
  readonly priority?: number | undefined;
  /** `--dev`: priority 666. */
  readonly dev?: boolean | undefined;
  /** `--leader-election`: one replica handles everything, the others stand by. */
  readonly leaderElection?: boolean | undefined;
  /** `--sharding`: every replica handles its share of the objects. */
  readonly sharding?: boolean | undefined;
  /** `--lease-name`: the election's Lease, or the members' prefix and ring name. */
  readonly leaseName?: string | undefined;
  /** `--lease-namespace`: where the Leases are. */
  readonly leaseNamespace?: string | undefined;
  /** `--shard-watch`: what a sharded replica watches (`settings.scaling.watch`). */
  readonly shardWatch?: "auto" | "own-shards" | "all" | undefined;
}

/** The settings-related options of `kopf freeze`. */
export interface FreezeOptions {
  /** `-P/--peering NAME` (required by the CLI). */
  readonly peeringName: string;
  /** `-p/--priority` (the CLI's default is 100). */
  readonly priority: number;
  /** `--dev`: priority 666. */
  readonly dev?: boolean | undefined;
}

/**
 * The overrides `kopf run` applies before the operator starts.
 *
 * @example
 * ```ts
 * import { RunOptions, Settings } from "@kopf/settings";
 * const made = Settings.make(RunOptions.forRun({ peeringName: "team-a", dev: true }));
 * // peering: { name: "team-a", mandatory: true, priority: 666, clusterwide: false, … }
 * ```
 */
export const forRun = (options: RunOptions): Overrides => {
  const priority = options.dev === true ? DEV_PRIORITY : options.priority;
  return {
    peering: {
      clusterwide: options.clusterwide ?? false,
      ...(options.peeringName !== undefined ? { mandatory: true, name: options.peeringName } : {}),
      ...(options.standalone !== undefined ? { standalone: options.standalone } : {}),
      ...(priority !== undefined ? { priority } : {}),
    },
    scaling: {
      ...(options.leaderElection === true ? { mode: "leader-election" as const } : {}),
      ...(options.sharding === true ? { mode: "sharding" as const } : {}),
      ...(options.leaseName !== undefined ? { leaseName: options.leaseName } : {}),
      ...(options.leaseNamespace !== undefined ? { leaseNamespace: options.leaseNamespace } : {}),
      ...(options.shardWatch !== undefined ? { watch: options.shardWatch } : {}),
    },
  };
};

/**
 * The overrides `kopf freeze` (and, without priority, `kopf resume`) runs with.
 *
 * @example
 * ```ts
 * import { RunOptions } from "@kopf/settings";
 * RunOptions.forFreeze({ peeringName: "default", priority: 100 });
 * // { peering: { name: "default", priority: 100 } }
 * ```
 */
export const forFreeze = (options: FreezeOptions): Overrides => ({
  peering: { name: options.peeringName, priority: options.dev === true ? DEV_PRIORITY : options.priority },
});

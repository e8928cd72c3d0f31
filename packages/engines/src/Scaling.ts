/**
 * How `Operating.run` scales an operator out, by `settings.scaling.mode` (or the options'
 * `leaderElection`/`sharding`): nothing for a single replica; leader election with warm standbys;
 * sharding over a ring of members. The mode is known before the operator starts (the ownership
 * seam is part of the runtime's processing); the Lease parameters are read when the
 * coordination starts, after the startup handlers, like peering's.
 */
import type { Engines, Operator, RootTasks } from "@kopf/runtime";
import { OperatorSettings, type Settings } from "@kopf/settings";
import * as Effect from "effect/Effect";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type * as Daemons from "./Daemons.ts";
import * as LeaderElection from "./LeaderElection.ts";
import * as Leadership from "./Leadership.ts";
import * as Sharding from "./Sharding.ts";

/** What the operator gets from its scaling mode. */
export interface Scaling {
  readonly mode: Settings.ScalingSettings["mode"];
  /** The runtime's ownership seam; `undefined` for a single replica (it owns everything). */
  readonly ownership: Engines.Ownership | undefined;
  /** The role for the liveness endpoint (`undefined` for a single replica). */
  readonly role: Effect.Effect<string | undefined>;
  /** The root tasks that coordinate with the other replicas. */
  readonly tasks: (identity: string, daemons: Daemons.DaemonsEngine) => ReadonlyArray<RootTasks.RootTask>;
}

/** The scaling mode the options ask for, over the settings of the context. */
const modeOf = (options: Operator.OperatorOptions) =>
  Effect.map(OperatorSettings, (base): Settings.ScalingSettings["mode"] => {
    if (options.leaderElection === true) return "leader-election";
    if (options.sharding === true) return "sharding";
    return options.settings?.scaling?.mode ?? base.scaling.mode;
  });

/**
 * The namespace of the Leases: the setting, else the one namespace served (a plain name, not a
 * pattern), else `default`.
 *
 * @example
 * leaseNamespace(settings.scaling, ["team-a"]) // "team-a" unless settings.scaling.leaseNamespace is set
 */
export const leaseNamespace = (
  settings: Settings.ScalingSettings,
  namespaces: ReadonlyArray<unknown> | undefined,
): string => {
  if (settings.leaseNamespace !== null) return settings.leaseNamespace;
  const [only, ...rest] = namespaces ?? [];
  if (rest.length === 0 && typeof only === "string" && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(only))
    return only;
  return "default";
};

/**
 * Prepares the scaling of an operator.
 *
 * @example
 * ```ts
 * const scaling = yield* Scaling.prepare({ registry, clusterwide: true, leaderElection: true })
 * yield* Operator.run({ ..., engines: { ownership: scaling.ownership }, tasks: scaling.tasks(identity, daemons) })
 * ```
 */
export const prepare = (options: Operator.OperatorOptions): Effect.Effect<Scaling> =>
  Effect.gen(function* () {
    const mode = yield* modeOf(options);
    if (mode === "leader-election") {
      const leadership = yield* Leadership.make;
      return {
        mode,
        ownership: leadership.fence.ownership,
        role: SubscriptionRef.get(leadership.role),
        tasks: (identity, daemons) => [
          (context) =>
            Effect.gen(function* () {
              const settings = context.settings.scaling;
              const config: LeaderElection.Config = {
                identity,
                leaseDuration: settings.leaseDuration,
                renewDeadline: settings.renewDeadline,
                retryPeriod: settings.retryPeriod,
              };
              const problem = LeaderElection.invalid(config);
              if (problem !== undefined)
                return yield* Effect.fail({ message: `Leader election: ${problem}.` });
              const namespace = leaseNamespace(settings, options.namespaces);
              return yield* leadership.run({ config, name: settings.leaseName, namespace }, daemons);
            }),
        ],
      } satisfies Scaling;
    }
    if (mode === "sharding") {
      const sharding = yield* Sharding.make;
      return {
        mode,
        ownership: { ...sharding.fence.ownership, shards: SubscriptionRef.changes(sharding.running) },
        role: Effect.succeed("member"),
        tasks: (identity, daemons) => [
          (context) =>
            Effect.gen(function* () {
              const settings = context.settings.scaling;
              const problem = LeaderElection.invalid({ identity, ...settings });
              if (problem !== undefined) return yield* Effect.fail({ message: `Sharding: ${problem}.` });
              return yield* sharding.run(
                {
                  identity,
                  ring: settings.leaseName,
                  namespace: leaseNamespace(settings, options.namespaces),
                  leaseDuration: settings.leaseDuration,
                  renewDeadline: settings.renewDeadline,
                  retryPeriod: settings.retryPeriod,
                },
                daemons,
              );
            }),
        ],
      } satisfies Scaling;
    }
    return { mode, ownership: undefined, role: Effect.succeed(undefined), tasks: () => [] } satisfies Scaling;
  });

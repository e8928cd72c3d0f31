/**
 * The interpreter of {@link LeaderElection}: reads, creates and updates the election's Lease
 * (updates carry the observed `resourceVersion`: a merge patch with it is refused with a
 * conflict if someone else wrote first), steps the state machine with the outcomes and the
 * `Clock`, and steers the ownership fence: the leader owns every object, a standby none (it
 * keeps watching and indexing, so a takeover needs no relisting). Losing the lead stops the
 * daemons and timers; a graceful exit stops new work, waits for the running cycles, stops the
 * daemons and timers, then releases the Lease so that a standby takes over within a retry
 * period. If that release is refused (its version stale), or a write was cut short by the stop
 * (it may have landed), it reads the Lease and releases it if it still names this replica.
 */
import { KubeApi } from "@kopf/client";
import { IsoTime } from "@kopf/structs";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type * as Daemons from "./Daemons.ts";
import * as EngineMetrics from "./EngineMetrics.ts";
import * as LeaderElection from "./LeaderElection.ts";
import * as LeaseRecord from "./LeaseRecord.ts";
import * as Ownership from "./Ownership.ts";

/** The role of a replica, as the liveness endpoint reports it. */
export type Role = "leader" | "standby";

/** Where the election's Lease is and how to run it. */
export interface LeadershipOptions {
  readonly config: LeaderElection.Config;
  readonly name: string;
  readonly namespace: string;
}

/** An election's view for the rest of the operator. */
export interface Leadership {
  readonly fence: Ownership.Fence;
  readonly role: SubscriptionRef.SubscriptionRef<Role>;
  /** Runs the election until interrupted; then hands over gracefully (see the module comment). */
  readonly run: (
    options: LeadershipOptions,
    daemons: Daemons.DaemonsEngine,
  ) => Effect.Effect<never, never, KubeApi>;
}

const versionOf = (body: { readonly metadata?: unknown }): string => {
  const meta = body.metadata as { resourceVersion?: unknown } | undefined;
  return typeof meta?.resourceVersion === "string" ? meta.resourceVersion : "";
};

/**
 * Prepares an election: its fence owns nothing until the election is run and won.
 *
 * @example
 * ```ts
 * const leadership = yield* Leadership.make
 * yield* Effect.forkScoped(leadership.run({ config, name: "my-operator", namespace: "default" }, daemons))
 * yield* Operator.run({ registry, clusterwide: true, engines: { ownership: leadership.fence.ownership } })
 * ```
 */
export const make: Effect.Effect<Leadership> = Effect.gen(function* () {
  let elected: { readonly config: LeaderElection.Config; state: LeaderElection.State } | undefined;
  const leading = Effect.map(IsoTime.now, (now) =>
    elected === undefined ? false : LeaderElection.isLeading(elected.config, elected.state, now),
  );
  const fence = yield* Ownership.make(leading);
  const role = yield* SubscriptionRef.make<Role>("standby");
  const run = (options: LeadershipOptions, daemons: Daemons.DaemonsEngine) =>
    Effect.suspend(() => {
      const election = { config: options.config, state: LeaderElection.initial };
      elected = election;
      return EngineMetrics.leading(false).pipe(
        Effect.andThen(elect(options, election, fence, role, daemons)),
      );
    });
  return { fence, role, run };
});

const elect = (
  options: LeadershipOptions,
  election: { readonly config: LeaderElection.Config; state: LeaderElection.State },
  fence: Ownership.Fence,
  role: SubscriptionRef.SubscriptionRef<Role>,
  daemons: Daemons.DaemonsEngine,
): Effect.Effect<never, never, KubeApi> =>
  Effect.suspend(() => {
    const { config, name, namespace } = options;
    const where = `${namespace}/${name}`;

    /** Whether a write was interrupted before its outcome was known (it may have been applied). */
    let unsettled = false;

    /** Performs a write; `true` if it succeeded (the state then knows the new version). */
    const write = (action: LeaderElection.Action, startedAt: number) =>
      Effect.gen(function* () {
        const api = yield* KubeApi;
        if (action._tag !== "Create" && action._tag !== "Update") return false;
        unsettled = true;
        const request =
          action._tag === "Create"
            ? api.create(LeaseRecord.LEASES, LeaseRecord.lease({ name, namespace }, action.record), {
                namespace,
              })
            : api.patch(
                LeaseRecord.LEASES,
                { namespace, name },
                {
                  type: "merge",
                  body: {
                    metadata: { resourceVersion: action.resourceVersion },
                    spec: LeaseRecord.toSpec(action.record),
                  },
                },
              );
        return yield* request.pipe(
          Effect.flatMap((body) =>
            Effect.map(IsoTime.now, (now) => {
              election.state = LeaderElection.written(config, action.record, versionOf(body), startedAt, now);
              return true;
            }),
          ),
          Effect.catch((error) =>
            Effect.as(Effect.logDebug(`Failed to write the lease ${where}: ${error.message}`), false),
          ),
          Effect.map((succeeded) => {
            unsettled = false;
            return succeeded;
          }),
        );
      });

    const read = Effect.flatMap(KubeApi, (api) => api.get(LeaseRecord.LEASES, { namespace, name })).pipe(
      Effect.map(
        (body): LeaderElection.Observation => ({
          _tag: "Found",
          record: LeaseRecord.fromLease(body),
          resourceVersion: versionOf(body),
        }),
      ),
      Effect.catch((error) =>
        error._tag === "KubeApiError" && error.reason === "NotFound"
          ? Effect.succeed<LeaderElection.Observation | undefined>({ _tag: "Absent" })
          : Effect.as(Effect.logWarning(`Failed to read the lease ${where}: ${error.message}`), undefined),
      ),
    );

    const round = Effect.gen(function* () {
      const startedAt = yield* IsoTime.now;
      const planned = LeaderElection.plan(config, election.state, startedAt);
      if (planned._tag === "Update" && (yield* write(planned, startedAt))) return;
      const observation = yield* read;
      if (observation === undefined) return;
      const now = yield* IsoTime.now;
      const decided = LeaderElection.observe(config, election.state, observation, now);
      election.state = decided.state;
      yield* write(decided.action, now);
    });

    const settle = Effect.gen(function* () {
      const now = yield* IsoTime.now;
      const next: Role = LeaderElection.isLeading(config, election.state, now) ? "leader" : "standby";
      const previous = yield* SubscriptionRef.get(role);
      if (next === previous) return;
      yield* SubscriptionRef.set(role, next);
      yield* EngineMetrics.leading(next === "leader");
      if (next === "leader") {
        yield* Effect.logInfo(`Leading: acquired the lease ${where} as ${config.identity}.`);
        yield* fence.assign(Ownership.EVERYTHING);
      } else {
        yield* Effect.logWarning(
          `Standing by: the lease ${where} was not renewed within ${config.renewDeadline}s; no new handling.`,
        );
        yield* fence.assign(Ownership.NOTHING);
        yield* daemons.disown(Ownership.NOTHING, "operator-pausing");
      }
    });

    const handOver = Effect.gen(function* () {
      yield* fence.assign(Ownership.NOTHING);
      yield* fence.drained(Ownership.EVERYTHING);
      yield* daemons.disown(Ownership.NOTHING, "operator-exiting");
      const now = yield* IsoTime.now;
      const released = LeaderElection.release(config, election.state, now);
      election.state = released.state;
      yield* SubscriptionRef.set(role, "standby");
      yield* EngineMetrics.leading(false);
      if (released.action._tag === "Update") {
        if (yield* write(released.action, now)) return yield* Effect.logInfo(`Released the lease ${where}.`);
      } else if (!unsettled) return;
      // Refused, or a write cut short by the stop may have landed after all: read, release if ours.
      const observation = yield* read;
      if (observation === undefined) return;
      const later = yield* IsoTime.now;
      const again = LeaderElection.releaseFound(config, observation, later);
      if (again.action._tag === "Update" && (yield* write(again.action, later))) {
        yield* Effect.logInfo(`Released the lease ${where} (on a second try, at its current version).`);
      }
    });

    return Effect.gen(function* () {
      yield* Effect.logInfo(`Standing by for the lease ${where} as ${config.identity}.`);
      while (true) {
        yield* round;
        yield* settle;
        const now = yield* IsoTime.now;
        yield* Effect.sleep(
          Duration.millis(Math.ceil(LeaderElection.delay(config, election.state, now) / 1000)),
        );
        yield* settle;
      }
    }).pipe(Effect.onInterrupt(() => handOver));
  });

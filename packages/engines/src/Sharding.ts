/**
 * The interpreter of {@link ShardHandoff}: one ring member. It keeps its own Lease (named
 * `<ring>-<hash of its identity>`, labelled `kopf.dev/ring: <ring>`, holder = identity, the
 * ranges it holds in the `kopf.dev/shards` annotation as a `shardSelector` expression), lists
 * the ring's Leases every retry period, and steers the ownership fence so that the runtime
 * handles exactly the objects whose uid hash falls into the ranges it may run:
 *
 * 1. ranges to give up take no new work at once; their running cycles end (as on shutdown);
 *    their daemons and timers are stopped; only then is the release published;
 * 2. ranges to take are published first, and run only once a listing after that shows no other
 *    live member publishing them (the gained objects are processed again: from the last state
 *    seen when the resource is watched whole, from the new listing when it is watched by
 *    shards — `running` is what such watches follow);
 * 3. a member that cannot renew its Lease stops acting at the renew deadline and publishes no
 *    ranges when it comes back; a graceful exit gives everything up, then deletes the Lease.
 */
import { KubeApi } from "@kopf/client";
import { IsoTime, type RawBody, ShardRange } from "@kopf/structs";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type * as Daemons from "./Daemons.ts";
import * as EngineMetrics from "./EngineMetrics.ts";
import * as LeaseRecord from "./LeaseRecord.ts";
import * as Ownership from "./Ownership.ts";
import * as ShardHandoff from "./ShardHandoff.ts";

/** The label naming a member Lease's ring. */
export const RING_LABEL = "kopf.dev/ring";
/** The annotation with the ranges a member holds (a `shardSelector` expression). */
export const SHARDS_ANNOTATION = "kopf.dev/shards";

/** A ring member's parameters (times in seconds). */
export interface ShardingOptions {
  readonly identity: string;
  readonly ring: string;
  readonly namespace: string;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

/** A member's view for the rest of the operator. */
export interface Sharding {
  readonly fence: Ownership.Fence;
  /** The ranges this member runs now. */
  readonly running: SubscriptionRef.SubscriptionRef<ReadonlyArray<ShardRange.ShardRange>>;
  /** Runs the membership until interrupted; then hands everything over (see the module comment). */
  readonly run: (
    options: ShardingOptions,
    daemons: Daemons.DaemonsEngine,
  ) => Effect.Effect<never, never, KubeApi>;
}

/**
 * The name of a member's Lease.
 *
 * @example
 * leaseName("kopf", "pod-a") // "kopf-" + 16 hex digits
 */
export const leaseName = (ring: string, identity: string): string =>
  `${ring}-${ShardRange.fnv1a64(identity).toString(16).padStart(16, "0")}`;

/** Reads a member from its Lease (a malformed annotation reads as holding everything: conservative). */
const memberOf = (body: RawBody): Omit<ShardHandoff.Member, "at"> => {
  const record = LeaseRecord.fromLease(body);
  const annotations = ((body.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ??
    {}) as Record<string, string>;
  const text = annotations[SHARDS_ANNOTATION] ?? "";
  const parsed = text === "" ? undefined : ShardRange.parse(text);
  const holding =
    parsed === undefined ? [] : Result.isSuccess(parsed) ? parsed.success.ranges : [ShardRange.WHOLE];
  return {
    identity: record.holderIdentity,
    holding,
    leaseDurationSeconds: record.leaseDurationSeconds,
    fingerprint: `${LeaseRecord.fingerprint(record)}|${text}`,
  };
};

/**
 * Prepares a member: its fence owns nothing until it runs and holds ranges.
 *
 * @example
 * ```ts
 * const sharding = yield* Sharding.make
 * yield* Effect.forkScoped(sharding.run({ identity, ring: "kopf", namespace: "default", leaseDuration: 15, renewDeadline: 10, retryPeriod: 2 }, daemons))
 * ```
 */
export const make: Effect.Effect<Sharding> = Effect.gen(function* () {
  let deadline = 0; // until when (epoch µs) the last renewal allows acting
  const fence = yield* Ownership.make(Effect.map(IsoTime.now, (now) => now < deadline));
  const running = yield* SubscriptionRef.make<ReadonlyArray<ShardRange.ShardRange>>([]);
  const hashes = new Map<string, bigint>();
  const hashOf = (key: string) => {
    let hash = hashes.get(key);
    if (hash === undefined) {
      hash = ShardRange.fnv1a64(key);
      hashes.set(key, hash);
    }
    return hash;
  };
  const within = (ranges: ReadonlyArray<ShardRange.ShardRange>) => (key: string) =>
    ShardRange.contains(ranges, hashOf(key));

  const run = (
    options: ShardingOptions,
    daemons: Daemons.DaemonsEngine,
  ): Effect.Effect<never, never, KubeApi> =>
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const { identity, ring, namespace } = options;
      const name = leaseName(ring, identity);
      let held: ReadonlyArray<ShardRange.ShardRange> = [];
      let members: ReadonlyMap<string, ShardHandoff.Member> = new Map();

      const steer = (ranges: ReadonlyArray<ShardRange.ShardRange>) =>
        Effect.gen(function* () {
          yield* SubscriptionRef.set(running, ranges);
          yield* EngineMetrics.shards(ranges);
          yield* fence.assign(within(ranges));
          yield* daemons.disown(within(ranges), "operator-pausing");
        });

      const list = Effect.gen(function* () {
        const page = yield* api.list(LeaseRecord.LEASES, {
          namespace,
          labelSelector: `${RING_LABEL}=${ring}`,
        });
        const now = yield* IsoTime.now;
        const listed = page.items
          .map(memberOf)
          .filter((member) => member.identity !== "" && member.identity !== identity);
        members = ShardHandoff.observe(members, listed, now);
      });

      const publish = (holding: ReadonlyArray<ShardRange.ShardRange>, startedAt: number) =>
        Effect.gen(function* () {
          const record: LeaseRecord.LeaseRecord = {
            holderIdentity: identity,
            leaseDurationSeconds: options.leaseDuration,
            acquireTime: undefined,
            renewTime: startedAt,
            leaseTransitions: 0,
          };
          const annotations = { [SHARDS_ANNOTATION]: ShardRange.selector(holding) };
          const patched = api.patch(
            LeaseRecord.LEASES,
            { namespace, name },
            { type: "merge", body: { metadata: { annotations }, spec: LeaseRecord.toSpec(record) } },
          );
          yield* patched.pipe(
            Effect.catchIf(
              (error) => error._tag === "KubeApiError" && error.reason === "NotFound",
              () =>
                api.create(
                  LeaseRecord.LEASES,
                  LeaseRecord.lease(
                    { name, namespace },
                    { ...record, acquireTime: startedAt },
                    { labels: { [RING_LABEL]: ring }, annotations },
                  ),
                  { namespace },
                ),
            ),
          );
          held = holding;
          deadline = startedAt + options.renewDeadline * 1_000_000;
        });

      const round = Effect.gen(function* () {
        const startedAt = yield* IsoTime.now;
        if (startedAt >= deadline && held.length > 0) {
          // Not renewed in time: others may own these ranges by now; act on none, claim none.
          yield* Effect.logWarning(
            `The ring ${ring}: the lease ${name} was not renewed in time; handling nothing.`,
          );
          held = [];
          yield* steer([]);
        }
        yield* list;
        const plan = ShardHandoff.plan(identity, held, members, startedAt);
        if (plan.release.length > 0) {
          const keeping = ShardRange.subtract(
            ShardHandoff.runnable(identity, held, members, startedAt),
            plan.release,
          );
          yield* steer(keeping);
          yield* fence.drained(within(plan.release));
        }
        yield* publish(plan.holding, startedAt);
        if (plan.acquire.length > 0) yield* list;
        const now = yield* IsoTime.now;
        const ranges = now < deadline ? ShardHandoff.runnable(identity, held, members, now) : [];
        const before = yield* SubscriptionRef.get(running);
        if (ShardRange.selector(before) !== ShardRange.selector(ranges)) {
          yield* Effect.logInfo(
            `The ring ${ring} (${plan.live.length} live): handling ${ShardRange.selector(ranges) || "nothing"}.`,
          );
          yield* steer(ranges);
        }
      }).pipe(Effect.catch((error) => Effect.logWarning(`The ring ${ring}: ${error.message}`)));

      const leave = Effect.gen(function* () {
        yield* steer([]);
        yield* fence.drained(Ownership.EVERYTHING);
        yield* daemons.disown(Ownership.NOTHING, "operator-exiting");
        deadline = 0;
        yield* api.delete(LeaseRecord.LEASES, { namespace, name }).pipe(
          Effect.andThen(Effect.logInfo(`Left the ring ${ring}: deleted the lease ${namespace}/${name}.`)),
          Effect.catch((error) =>
            Effect.logWarning(`Failed to delete the lease ${namespace}/${name}: ${error.message}`),
          ),
        );
      });

      yield* Effect.logInfo(`Joining the ring ${ring} as ${identity} (lease ${namespace}/${name}).`);
      return yield* Effect.gen(function* () {
        while (true) {
          yield* round;
          const now = yield* IsoTime.now;
          const retry = options.retryPeriod * 1_000_000;
          const wait = Math.min(
            retry,
            deadline > now ? deadline - now : retry,
            ShardHandoff.nextExpiry(members, now) ?? retry,
          );
          yield* Effect.sleep(Duration.millis(Math.max(1, Math.ceil(wait / 1000))));
        }
      }).pipe(Effect.onInterrupt(() => leave));
    });

  return { fence, running, run };
});

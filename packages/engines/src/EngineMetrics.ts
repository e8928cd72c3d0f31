/**
 * The engines' Effect metrics: daemons and timers running (by resource and handler id), the
 * peering state (paused or not), and a scaled-out replica's role (leading or standing by; the
 * share of the hash space it handles). Like the runtime's metrics they live in Effect's metric
 * registry of the context, where the metrics endpoint reads them.
 */
import { MetricRecording } from "@kopf/client";
import type * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";

/** Daemons and timers running, by `resource`, `handler` and `kind` (`daemon`, `timer`). */
export const running = Metric.gauge("kopf_daemons_running", {
  description: "Daemons and timers running, by resource, handler id and kind (daemon or timer)",
});
/** `1` while peering pauses this operator (a higher-priority peer, a missing mandatory CRD), else `0`. */
export const paused = Metric.gauge("kopf_peering_paused", {
  description: "1 while peering pauses this operator, 0 while it runs",
});

/** `1` while this replica holds the leader Lease (`--leader-election`), `0` while it stands by. */
export const leader = Metric.gauge("kopf_leader_election_leader", {
  description: "1 while this replica holds the leader Lease, 0 while it stands by (leader election only)",
});
/** The share of the hash space (0 to 1) whose objects this replica handles (`--sharding`). */
export const shardShare = Metric.gauge("kopf_sharding_share", {
  description: "The share of the hash space, 0 to 1, whose objects this sharded replica handles",
});

/**
 * Counts a daemon or timer starting (`+1`) or exiting (`-1`).
 *
 * @example
 * ```ts
 * yield* EngineMetrics.runner({ resource: "kopfexamples.v1.kopf.dev", handler: "monitor", kind: "daemon" }, 1)
 * ```
 */
export const runner = (
  labels: { readonly resource: string; readonly handler: string; readonly kind: "daemon" | "timer" },
  delta: 1 | -1,
): Effect.Effect<void> => MetricRecording.modify(Metric.withAttributes(running, { ...labels }), delta);

/**
 * Records the peering state.
 *
 * @example
 * ```ts
 * yield* EngineMetrics.peering(true)
 * ```
 */
export const peering = (isPaused: boolean): Effect.Effect<void> =>
  MetricRecording.update(paused, isPaused ? 1 : 0);

/**
 * Records whether this replica leads.
 *
 * @example
 * ```ts
 * yield* EngineMetrics.leading(true)
 * ```
 */
export const leading = (isLeader: boolean): Effect.Effect<void> =>
  MetricRecording.update(leader, isLeader ? 1 : 0);

/**
 * Records the share of the 2^64 hash space a sharded replica runs, from its ranges' sizes.
 *
 * @example
 * ```ts
 * yield* EngineMetrics.shards([{ start: 0n, end: 1n << 63n }]) // 0.5
 * ```
 */
export const shards = (
  ranges: ReadonlyArray<{ readonly start: bigint; readonly end: bigint }>,
): Effect.Effect<void> =>
  MetricRecording.update(
    shardShare,
    Number(ranges.reduce((sum, r) => sum + (r.end - r.start), 0n)) / 2 ** 64,
  );

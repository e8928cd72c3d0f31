/**
 * The engines' Effect metrics: daemons and timers running (by resource and handler id) and the
 * peering state (paused or not). Like the runtime's metrics they live in Effect's metric
 * registry of the context, where the metrics endpoint reads them.
 */
import { type Effect, Metric } from "effect";

/** Daemons and timers running, by `resource`, `handler` and `kind` (`daemon`, `timer`). */
export const running = Metric.gauge("kopf_daemons_running", {
  description: "Daemons and timers running, by resource, handler id and kind (daemon or timer)",
});
/** `1` while peering pauses this operator (a higher-priority peer, a missing mandatory CRD), else `0`. */
export const paused = Metric.gauge("kopf_peering_paused", {
  description: "1 while peering pauses this operator, 0 while it runs",
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
): Effect.Effect<void> => Metric.modify(Metric.withAttributes(running, { ...labels }), delta);

/**
 * Records the peering state.
 *
 * @example
 * ```ts
 * yield* EngineMetrics.peering(true)
 * ```
 */
export const peering = (isPaused: boolean): Effect.Effect<void> => Metric.update(paused, isPaused ? 1 : 0);

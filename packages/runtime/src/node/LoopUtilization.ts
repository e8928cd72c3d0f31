/**
 * The live event loop load (see `LoopLoad.ts`): Node.js's event loop utilization, the share of the
 * time the loop was not idle in the kernel's poll, between two readings. Reading it costs a
 * microsecond and wakes nothing.
 *
 * Edge code: it touches `node:perf_hooks`. `Operating.run` of `@kopf/engines` provides it (so
 * `kopf run`, `kopf.operator()` and `KopfRunner` have it).
 */
import { performance } from "node:perf_hooks";
import * as Layer from "effect/Layer";
import { LoopLoad } from "../LoopLoad.ts";

/**
 * Readers of this process's event loop utilization.
 *
 * @example
 * ```ts
 * const program = Operator.run(options).pipe(Effect.provide(LoopUtilization.layer))
 * ```
 */
export const layer: Layer.Layer<LoopLoad> = Layer.succeed(LoopLoad, {
  reader: () => {
    let last = performance.eventLoopUtilization();
    return () => {
      const now = performance.eventLoopUtilization();
      const { utilization } = performance.eventLoopUtilization(now, last);
      last = now;
      return utilization;
    };
  },
});

/**
 * The V8 heap sizing of a `kopf run` process. V8's defaults suit a short burst of work on a big
 * machine: in a burst of objects the young generation grows to 2 × 64 MiB and the old generation
 * to about four times what survived its last full collection before it is collected again, and
 * the pages stay resident afterwards. An operator's live heap is small (the objects in flight
 * and their fibers), so `kopf run` keeps both generations nearer to it: the young generation
 * stays between half of {@link YOUNG_SEMI_SPACE_MIB} and all of it per semi-space (half, in the
 * bursts measured: see {@link youngMayGrow}) and the old generation grows by
 * {@link OLD_GROWING_PERCENT} percent between full collections. Measured side by side (README,
 * "Performance"), this roughly halves the peak RSS of a burst for a little more CPU per object.
 *
 * The flags are set in the running process (`v8.setFlagsFromString`), so they apply however the
 * operator is started (the `kopf` bin, `node …/main.js`, a container's command) without a
 * `NODE_OPTIONS` line. V8 reads the young generation's maximum only at start, so the cap is kept
 * by its growth factor instead, which V8 reads at every growth: an observer of collections
 * switches growth off once another doubling could pass the cap and on again when it shrank.
 * The observer runs after the collections it is told of, so a quick series of them can take the
 * young generation one doubling past the cap (the test allows that much). Whatever the user set
 * on Node's command line or in `NODE_OPTIONS` for these wins: {@link plan} leaves it alone.
 */
import { PerformanceObserver } from "node:perf_hooks";
import * as v8 from "node:v8";
import { mentions, startFlags } from "./internal/nodeFlags.ts";

/** The young generation's cap, per semi-space (V8's `--max-semi-space-size`, in MiB). */
export const YOUNG_SEMI_SPACE_MIB = 8;

/** How much the old generation may grow between full collections (V8's `--heap-growing-percent`). */
export const OLD_GROWING_PERCENT = 50;

/** What to set; `undefined`: leave V8's default (or the user's own flag). */
export interface HeapPlan {
  /** Cap of the young generation per semi-space, MiB. */
  readonly youngSemiSpaceMiB: number | undefined;
  /** `--heap-growing-percent`. */
  readonly oldGrowingPercent: number | undefined;
}

const YOUNG_FLAGS = ["--max-semi-space-size", "--semi-space-growth-factor", "--max-heap-size"];
const OLD_FLAGS = ["--heap-growing-percent"];
/** Flags that tune the whole heap: with one of them, nothing is changed. */
const WHOLE_FLAGS = ["--optimize-for-size", "--predictable-gc-schedule"];

/**
 * What to tune, given Node's own options: `execArgv` (the command line before the script) and
 * the `NODE_OPTIONS` environment variable. A generation the user sized (or the whole heap) is
 * left alone.
 *
 * @example
 * ```ts
 * HeapSizing.plan([], undefined) // { youngSemiSpaceMiB: 4, oldGrowingPercent: 50 }
 * HeapSizing.plan(["--max-semi-space-size=16"], undefined) // { youngSemiSpaceMiB: undefined, oldGrowingPercent: 50 }
 * ```
 */
export const plan = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): HeapPlan => {
  const options = startFlags(execArgv, nodeOptions);
  if (mentions(options, WHOLE_FLAGS)) return { youngSemiSpaceMiB: undefined, oldGrowingPercent: undefined };
  return {
    youngSemiSpaceMiB: mentions(options, YOUNG_FLAGS) ? undefined : YOUNG_SEMI_SPACE_MIB,
    oldGrowingPercent: mentions(options, OLD_FLAGS) ? undefined : OLD_GROWING_PERCENT,
  };
};

/**
 * Whether the young generation may still grow. V8 doubles it at a collection, and the observer
 * learns of collections late (two may pass before it runs: measured), so growth is allowed only
 * while two more doublings stay within the cap (`newSpaceBytes` counts both semi-spaces): the
 * young generation ends between half the cap and the cap.
 */
export const youngMayGrow = (newSpaceBytes: number, semiSpaceMiB: number): boolean =>
  4 * newSpaceBytes <= 2 * semiSpaceMiB * 1024 * 1024;

const newSpaceBytes = (): number =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;

/**
 * Applies a plan to this process. Returns a function that stops keeping the young generation's
 * cap (its observer of collections).
 *
 * @example
 * ```ts
 * const stop = HeapSizing.apply(HeapSizing.plan(process.execArgv, process.env.NODE_OPTIONS))
 * ```
 */
export const apply = (heap: HeapPlan): (() => void) => {
  if (heap.oldGrowingPercent !== undefined) {
    v8.setFlagsFromString(`--heap-growing-percent=${heap.oldGrowingPercent}`);
  }
  const cap = heap.youngSemiSpaceMiB;
  if (cap === undefined) return () => {};
  // Growth starts switched off: loading the operator's modules is one long stretch of work the
  // observer cannot interrupt; the first collections after it switch growth on if there is room.
  let growing = false;
  v8.setFlagsFromString("--semi-space-growth-factor=1");
  const steer = () => {
    const may = youngMayGrow(newSpaceBytes(), cap);
    if (may === growing) return;
    growing = may;
    v8.setFlagsFromString(`--semi-space-growth-factor=${may ? 2 : 1}`);
  };
  const observer = new PerformanceObserver(steer);
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
};

/**
 * Giving memory back when a `kopf run` process falls idle. After a burst of objects V8 keeps the
 * pages it grew into (freed pages stay in its pool, resident), so the RSS stays near the burst's
 * peak long after the objects are gone, although the live heap returned to its size before the
 * burst. A memory-reducing full collection (V8's "last resort" flavour: it also releases the
 * pooled pages) brings the RSS back; it costs a few hundred milliseconds of CPU, so it runs only
 * when the process has been idle for {@link IDLE_TICKS} checks in a row and has grown by
 * {@link GROWTH} since the last release: once after each burst.
 *
 * Start-up is a burst too, one whose end needs no waiting to be sure of: loading and compiling
 * the modules, reading the kubeconfig and the first listings leave megabytes of garbage, and
 * nothing of that recurs. The first release therefore comes at the first idle check
 * ({@link START_IDLE_TICKS}), as soon as the operator rests after starting, instead of after the
 * longer wait that keeps pauses inside a burst from triggering collections.
 *
 * V8 offers the collection to scripts only behind `--expose-gc`; the flag is switched on just
 * long enough to take the function from a fresh context and off again, so the operator's own
 * global scope never sees `gc`.
 */
import * as v8 from "node:v8";
import * as vm from "node:vm";

/** How often the process's CPU time and RSS are looked at, milliseconds. */
export const TICK_MS = 500;
/** Below this share of one core over a tick the process counts as idle. */
export const IDLE_SHARE = 0.05;
/** Idle ticks in a row before memory is given back. */
export const IDLE_TICKS = 3;
/** Idle ticks in a row before the first release, the one after start-up. */
export const START_IDLE_TICKS = 1;
/** How much the RSS must have grown since the last release (a factor of it) for another one. */
export const GROWTH = 1.25;

/** What the checks remember between ticks. */
export interface ReleaseState {
  /** Idle ticks in a row so far. */
  readonly idleTicks: number;
  /** The RSS right after the last release; `undefined`: none yet. */
  readonly floor: number | undefined;
}

/** Before the first tick. */
export const initial: ReleaseState = { idleTicks: 0, floor: undefined };

/**
 * One tick: given the CPU time the process used since the last tick and its RSS now, the next
 * state and whether to give memory back now.
 *
 * @example
 * ```ts
 * const { state, release } = HeapRelease.tick(HeapRelease.initial, { cpuMs: 3, tickMs: 1000, rss })
 * ```
 */
export const tick = (
  state: ReleaseState,
  sample: { readonly cpuMs: number; readonly tickMs: number; readonly rss: number },
): { readonly state: ReleaseState; readonly release: boolean } => {
  const idle = sample.cpuMs < IDLE_SHARE * sample.tickMs;
  const idleTicks = idle ? state.idleTicks + 1 : 0;
  const grown = state.floor === undefined || sample.rss >= GROWTH * state.floor;
  const wait = state.floor === undefined ? START_IDLE_TICKS : IDLE_TICKS;
  const release = idleTicks >= wait && grown;
  return { state: { idleTicks: release ? 0 : idleTicks, floor: state.floor }, release };
};

/** After a release: the RSS it left is the new floor. */
export const released = (state: ReleaseState, rss: number): ReleaseState => ({ ...state, floor: rss });

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/** V8's collector, taken from a fresh context with `--expose-gc` on for that moment only. */
const collector = (): Collect | undefined => {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === "function") return exposed as Collect;
  v8.setFlagsFromString("--expose-gc");
  try {
    const gc: unknown = vm.runInNewContext("gc");
    return typeof gc === "function" ? (gc as Collect) : undefined;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
};

/**
 * Starts the checks (an unreferenced timer: it never keeps the process alive). Returns a
 * function that stops them.
 *
 * @example
 * ```ts
 * const stop = HeapRelease.start()
 * ```
 */
export const start = (): (() => void) => {
  const gc = collector();
  if (gc === undefined) return () => {};
  let state = initial;
  let last = process.cpuUsage();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    const next = tick(state, {
      cpuMs: (used.user + used.system) / 1000,
      tickMs: TICK_MS,
      rss: process.memoryUsage.rss(),
    });
    state = next.state;
    if (!next.release) return;
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    state = released(state, process.memoryUsage.rss());
    // The collection's own CPU time is not the operator's work: the next tick starts after it.
    last = process.cpuUsage();
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
};

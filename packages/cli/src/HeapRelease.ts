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
 * The start-up release also drops the bytecode of the functions that ran only while starting
 * (parsing the command line, reading the kubeconfig, loading the modules): V8 keeps a function's
 * bytecode until it has gone unused through {@link CODE_AGE_AFTER_START} full collections, which
 * an operator at rest rarely runs, so start-up's code would stay for the process's life. For that
 * one collection the age is {@link START_UP_CODE_AGE}; a function needed again later is compiled
 * again when it is called (measured: ~1.9 MiB less RSS after start for the same CPU per object,
 * docs/performance.md). A user's own flags for code flushing win: {@link flushesStartUpCode}.
 *
 * V8 offers the collection to scripts only behind `--expose-gc`; the flag is switched on just
 * long enough to take the function from a fresh context and off again, so the operator's own
 * global scope never sees `gc`.
 */
import * as v8 from "node:v8";
import * as vm from "node:vm";
import { mentions, startFlags } from "./internal/nodeFlags.ts";

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

/** The age (full collections unused) at which the start-up release drops a function's bytecode. */
export const START_UP_CODE_AGE = 1;
/** The age set again after it: V8's default in Node.js 24 (Node.js 20's is 5). */
export const CODE_AGE_AFTER_START = 6;

/** V8's flags for code flushing: with one of them the user decides. */
const FLUSH_FLAGS = [
  "--bytecode-old-age",
  "--flush-bytecode",
  "--flush-baseline-code",
  "--flush-code-based-on-time",
  "--stress-flush-code",
];

/**
 * Whether the start-up release drops start-up's bytecode, given Node's own options: `execArgv`
 * (the command line before the script) and the `NODE_OPTIONS` environment variable.
 *
 * @example
 * ```ts
 * HeapRelease.flushesStartUpCode([], undefined) // true
 * HeapRelease.flushesStartUpCode(["--no-flush-bytecode"], undefined) // false: the user's choice
 * ```
 */
export const flushesStartUpCode = (
  execArgv: ReadonlyArray<string>,
  nodeOptions: string | undefined,
): boolean => !mentions(startFlags(execArgv, nodeOptions), FLUSH_FLAGS);

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
 * function that stops them. With `flushStartUpCode`, the first release also drops start-up's
 * bytecode.
 *
 * @example
 * ```ts
 * const stop = HeapRelease.start({
 *   flushStartUpCode: HeapRelease.flushesStartUpCode(process.execArgv, process.env.NODE_OPTIONS),
 * })
 * ```
 */
export const start = (options: { readonly flushStartUpCode: boolean }): (() => void) => {
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
    const flush = options.flushStartUpCode && state.floor === undefined;
    if (flush) v8.setFlagsFromString(`--bytecode-old-age=${START_UP_CODE_AGE}`);
    try {
      gc({ type: "major", execution: "sync", flavor: "last-resort" });
    } finally {
      if (flush) v8.setFlagsFromString(`--bytecode-old-age=${CODE_AGE_AFTER_START}`);
    }
    state = released(state, process.memoryUsage.rss());
    // The collection's own CPU time is not the operator's work: the next tick starts after it.
    last = process.cpuUsage();
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
};

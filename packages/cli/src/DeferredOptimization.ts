/**
 * When V8's optimizing compiler, TurboFan, starts in a `kopf run` process. V8 hands a function to
 * TurboFan once it has run a few thousand times, which an operator's per-object code does within
 * its first few hundred objects: in a start-up burst (the first listing of every object)
 * TurboFan's compiles cost about as much CPU as they save, page in the compiler's code and leave
 * its working memory with the C allocator, and its code pays off only over thousands of objects
 * more (measured side by side, see docs/performance.md). So `kopf run` starts with TurboFan off,
 * V8's lighter optimizing compiler (Maglev) as the top tier, and turns TurboFan on once the
 * process has used {@link CPU_SECONDS} seconds of CPU: a process that stays busy gets TurboFan's
 * code soon, one that handles a burst and rests never pays for it.
 *
 * The flags are set in the running process (`v8.setFlagsFromString`; V8 reads `--turbofan` at
 * every tiering decision, so functions that ran often while it was off move up to it soon after
 * it is on). The CPU is looked at after a garbage collection (at most every
 * {@link LOOK_EVERY_MS}), which a busy process runs often and an idle one not at all, so an idle
 * operator is never woken for it. A user's own flag for
 * V8's tiers on Node's command line or in `NODE_OPTIONS` wins: {@link plan} leaves them alone.
 */
import { PerformanceObserver, performance } from "node:perf_hooks";
import * as v8 from "node:v8";
import { mentions, startFlags } from "./internal/nodeFlags.ts";

/** CPU (user and system, since the process started) after which TurboFan runs. */
export const CPU_SECONDS = 5;

/**
 * What is set until then: no TurboFan. V8 then makes Maglev (its middle tier, which Node.js
 * leaves off otherwise) the top tier, and Maglev's code, made without the checks that move a hot
 * function up a tier when Maglev is the top one, would never move on to TurboFan: the checks are
 * forced in.
 */
const DEFERRED = ["--no-turbofan", "--force-emit-interrupt-budget-checks"] as const;
/** What is set after: TurboFan, and the checks as V8 would emit them. */
const OPTIMIZING = ["--turbofan", "--no-force-emit-interrupt-budget-checks"] as const;

/** Flags of V8's tiers: with one of them the user decides. */
const TIER_FLAGS = [
  "--turbofan",
  "--opt",
  "--maglev",
  "--max-opt",
  "--jitless",
  "--always-turbofan",
  "--always-osr",
  "--sparkplug",
];

/** V8's first major version that takes Maglev as the top tier when TurboFan is off (Node.js 24). */
export const FROM_V8_MAJOR = 13;

/**
 * After how many microseconds of the process's CPU TurboFan starts, given Node's own options:
 * `execArgv` (the command line before the script) and the `NODE_OPTIONS` environment variable,
 * and V8's version (`process.versions.v8`); `undefined` leaves V8's tiers as they are. An older
 * V8 (Node.js 22) runs only its baseline compiler's code with TurboFan off, which costs a third
 * more CPU per object (measured), so there nothing is deferred.
 *
 * @example
 * ```ts
 * DeferredOptimization.plan([], undefined, "13.6.233.17-node.40") // 5_000_000
 * DeferredOptimization.plan(["--max-opt=2"], undefined, "13.6.233.17-node.40") // undefined: the user's choice
 * DeferredOptimization.plan([], undefined, "12.4.254.21-node.33") // undefined
 * ```
 */
export const plan = (
  execArgv: ReadonlyArray<string>,
  nodeOptions: string | undefined,
  v8Version: string,
): number | undefined =>
  Number.parseInt(v8Version, 10) >= FROM_V8_MAJOR && !mentions(startFlags(execArgv, nodeOptions), TIER_FLAGS)
    ? CPU_SECONDS * 1_000_000
    : undefined;

/**
 * How often the process's CPU is read, at most (wall time, ms). Reading it is a system call that
 * took ~0.2 ms per call on a virtual machine (2 cores, Firecracker) while the process was busy,
 * and a busy process collects garbage dozens of times a second: read after every collection, it
 * cost ~1% of the CPU of a burst of objects.
 */
export const LOOK_EVERY_MS = 250;

/** The process's CPU so far, in microseconds. */
const cpuMicros = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/**
 * Turns TurboFan off until the process has used `afterCpuMicros` of CPU (nothing is changed if
 * it already has). Returns a function that stops waiting, leaving V8's tiers as they are then.
 *
 * @example
 * ```ts
 * DeferredOptimization.apply(
 *   DeferredOptimization.plan(process.execArgv, process.env.NODE_OPTIONS, process.versions.v8),
 * )
 * ```
 */
export const apply = (afterCpuMicros: number | undefined): (() => void) => {
  if (afterCpuMicros === undefined || cpuMicros() >= afterCpuMicros) return () => {};
  for (const flag of DEFERRED) v8.setFlagsFromString(flag);
  let lookedAt = performance.now();
  const observer = new PerformanceObserver(() => {
    const now = performance.now();
    if (now - lookedAt < LOOK_EVERY_MS) return;
    lookedAt = now;
    if (cpuMicros() < afterCpuMicros) return;
    observer.disconnect();
    for (const flag of OPTIMIZING) v8.setFlagsFromString(flag);
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
};

// The profiled passes of the overhead benchmark (overhead.bench.ts): V8's sampling CPU profiler
// (a sample per 100 µs) or its sampling heap profiler (a sample per 8 KiB allocated, collected
// objects kept) over node:inspector, started before a run's objects are created and stopped once
// they are processed, its profile split by seam (internal/seams.ts). BENCH_CPU_PROFILE and
// BENCH_HEAP_PROFILE write the raw profiles too, for a closer look.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import * as Effect from "effect/Effect";
import { type HeapProfile, type Profile, splitAllocations, splitProfile } from "./seams.ts";

/** A pass: unprofiled, under the CPU profiler, or under the sampling heap profiler. */
export type Pass = "plain" | "cpu" | "allocations";

/** A profiler started for a pass; `stop` ends it and gives the samples by seam (none unprofiled). */
export interface Profiling {
  readonly stop: Effect.Effect<Map<string, number> | undefined>;
}

/**
 * Starts the profiler of `pass` (nothing for a plain pass).
 *
 * @example
 * const profiling = yield* startProfiling("cpu")
 * // … the objects …
 * const split = yield* profiling.stop // µs per seam
 */
export const startProfiling = (pass: Pass): Effect.Effect<Profiling> =>
  Effect.gen(function* () {
    if (pass === "plain") return { stop: Effect.succeed(undefined) };
    const session = new Session();
    session.connect();
    if (pass === "cpu") {
      yield* Effect.promise(() => session.post("Profiler.enable"));
      yield* Effect.promise(() => session.post("Profiler.setSamplingInterval", { interval: 100 }));
      yield* Effect.promise(() => session.post("Profiler.start"));
      return {
        stop: Effect.gen(function* () {
          const { profile } = yield* Effect.promise(() => session.post("Profiler.stop"));
          session.disconnect();
          dump(process.env.BENCH_CPU_PROFILE, profile);
          return splitProfile(profile as Profile);
        }),
      };
    }
    // Every allocation counts, also of objects collected since (so: what the collector had to deal
    // with, not what stays); a sample per 8 KiB allocated on average.
    yield* Effect.promise(() => session.post("HeapProfiler.enable"));
    yield* Effect.promise(() =>
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 8192,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      }),
    );
    return {
      stop: Effect.gen(function* () {
        const { profile } = yield* Effect.promise(() => session.post("HeapProfiler.stopSampling"));
        session.disconnect();
        dump(process.env.BENCH_HEAP_PROFILE, profile);
        // The protocol's answer also holds the samples, which @types/node's type leaves out.
        return splitAllocations(profile as unknown as HeapProfile);
      }),
    };
  });

const dump = (path: string | undefined, profile: unknown): void => {
  if (path !== undefined) writeFileSync(path, JSON.stringify(profile));
};

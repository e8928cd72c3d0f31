// The chaos suite (`npm run chaos`): every `*.chaos.test.ts` of the packages and examples, one
// file at a time (they measure the process's memory). Each scenario injects kills, API faults,
// hostile requests or scale-out changes, prints its figures (objects, kills, faults by kind,
// lost, re-runs explained and unexplained, result-vs-mark inconsistencies, stuck finalizers,
// overlaps, RSS before and after) and asserts every figure that must be zero. Not part of the
// default suite (vitest.config.ts excludes `*.chaos.test.ts`).
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  test: {
    include: [
      "packages/*/test/**/*.chaos.test.ts",
      "examples/*/test/**/*.chaos.test.ts",
      // The real tier's scale-out chaos in real time, here on the emulator (~50 s).
      "packages/engines/test/e2e/ScaleOut.chaos.real.test.ts",
    ],
    exclude: ["**/node_modules/**"],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    pool: "forks",
    fileParallelism: false,
    setupFiles: ["scripts/test/setup-fast-check.ts"],
  },
});

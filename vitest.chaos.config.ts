// The chaos suite (`npm run chaos`): every `*.chaos.test.ts` of the packages and examples, one
// file at a time (they measure the process's memory). Each scenario injects kills and API
// faults, prints its figures (objects, kills, faults by kind, lost, re-runs explained and
// unexplained, result-vs-mark inconsistencies, stuck finalizers, RSS before and after) and
// asserts every figure that must be zero. Not part of the default suite (vitest.config.ts).
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  test: {
    include: ["packages/*/test/**/*.chaos.test.ts", "examples/*/test/**/*.chaos.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
    setupFiles: ["scripts/test/setup-fast-check.ts"],
  },
});

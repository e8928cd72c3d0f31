// The chaos suite (`npm run chaos`): long scale-out scenarios with kills, restarts and scaling,
// counting what must never happen. Not part of `npm test`, which excludes `*.chaos.test.ts`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  test: {
    include: ["packages/*/test/**/*.chaos.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    pool: "forks",
    setupFiles: ["scripts/test/setup-fast-check.ts"],
  },
});

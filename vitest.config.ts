// Test runner configuration: every package's and example's `test/**/*.test.ts`, plus the
// repository scripts' own tests. Workspace packages resolve to their TypeScript sources through
// the `@kopf/source` export condition, so no build is needed before testing.
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "scripts/test/**/*.test.ts"],
    // `*.real.test.ts` need the real kube-apiserver: `npm run test:real` runs them (vitest.real.config.ts);
    // `*.chaos.test.ts` are the chaos suite: `npm run chaos` (vitest.chaos.config.ts).
    exclude: [
      "**/node_modules/**",
      "**/*.integration.test.ts",
      "**/*.bench.test.ts",
      "**/*.real.test.ts",
      "**/*.chaos.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["scripts/test/setup-fast-check.ts"],
  },
});

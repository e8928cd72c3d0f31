// The real-cluster tier (`npm run test:real`, `npm run conformance`): only `*.real.test.ts`
// files, which build (cached) and start the real kube-apiserver themselves. They run one file at
// a time: each file may start its own control plane, and the machine has two cores.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["packages/*/test/**/*.real.test.ts", "examples/*/test/**/*.real.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 300_000,
    hookTimeout: 1_800_000,
    pool: "forks",
    fileParallelism: false,
  },
});

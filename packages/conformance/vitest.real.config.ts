// The real-cluster tier (`npm run test:real`): a real kube-apiserver (tools/kube-apiserver, built
// once and cached by scripts/real-apiserver.sh) under five projects, one file at a time (each file
// starts its own control plane; the machine has two cores):
// - "conformance": `*.real.test.ts`, which start the API server themselves (the differential
//   conformance suite against the emulator);
// - "e2e": the end-to-end suites that run unchanged on the emulator in the default suite, here
//   with KOPF_TEST_CLUSTER pointed at a fresh real control plane per file (test/support/realCluster.ts);
// - "e2e-shared": the examples once more, all on one control plane reached by its kubeconfig, as
//   on kind/k3d/minikube (test/support/sharedCluster.ts; each file swept after it);
// - "chaos-real": scale-out chaos in real time (packages/engines/test/e2e/ScaleOut.chaos.real.test.ts:
//   a replica killed and restarted, 3 → 5 → 2 replicas) on a fresh control plane, as "e2e" starts;
// - "least-privilege": the proof that the RBAC manifests `kopf manifests` generates are enough
//   and no more (packages/cli/test/LeastPrivilege.real.test.ts), on a fresh control plane whose
//   admin kubeconfig the e2e setup file provides.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The end-to-end files that run on every cluster; `*.emulator.test.ts` are emulator-only. */
/** The least-privilege proof: a real file, but on the control plane the e2e setup file starts. */
const leastPrivilege = "packages/cli/test/LeastPrivilege.real.test.ts";
/** Scale-out chaos in real time: replicas killed, restarted and scaled on a fresh control plane. */
const chaosReal = "packages/engines/test/e2e/ScaleOut.chaos.real.test.ts";

export const endToEnd = [
  "examples/*/test/**/*.test.ts",
  "packages/*/test/e2e/**/*.test.ts",
  "packages/admission/test/Admission.test.ts",
  "packages/cli/test/PeeringCommands.test.ts",
];

export default defineConfig({
  resolve: { conditions: ["@kopf/source"] },
  ssr: { resolve: { conditions: ["@kopf/source"] } },
  // The global setup runs in vitest's own environment, which takes no condition from the two above:
  // without this, it would need the packages' built dist/ (there only after `tsc -b`).
  environments: { __vitest__: { resolve: { conditions: ["@kopf/source"] } } },
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    testTimeout: 300_000,
    hookTimeout: 1_800_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["packages/conformance/test/support/realTier.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "conformance",
          include: ["packages/*/test/**/*.real.test.ts", "examples/*/test/**/*.real.test.ts"],
          exclude: ["**/node_modules/**", leastPrivilege, chaosReal],
        },
      },
      {
        extends: true,
        test: {
          name: "least-privilege",
          include: [leastPrivilege],
          testTimeout: 600_000,
          setupFiles: ["packages/conformance/test/support/realCluster.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "chaos-real",
          include: [chaosReal],
          testTimeout: 300_000,
          setupFiles: ["packages/conformance/test/support/realCluster.ts"],
        },
      },
      {
        extends: true,
        test: {
          // The examples again, all on ONE control plane reached by its kubeconfig, one after
          // another, as on kind/k3d/minikube: each file must leave the cluster as it found it.
          name: "e2e-shared",
          include: ["examples/*/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/*.emulator.test.ts", "**/*.real.test.ts", "**/*.chaos.test.ts"],
          testTimeout: 120_000,
          globalSetup: ["packages/conformance/test/support/sharedCluster.ts"],
          setupFiles: ["packages/conformance/test/support/realCluster.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: endToEnd,
          exclude: ["**/node_modules/**", "**/*.emulator.test.ts", "**/*.real.test.ts", "**/*.chaos.test.ts"],
          testTimeout: 120_000,
          setupFiles: ["packages/conformance/test/support/realCluster.ts"],
        },
      },
    ],
  },
});

// Setup file of the real-cluster tier's end-to-end project. Two modes, by KOPF_TEST_CLUSTER:
// - unset or `real` (CI): each test file gets a fresh real control plane (etcd + kube-apiserver +
//   controllers, scripts/real-apiserver.sh), as each KopfRunner gets a fresh emulator in the
//   default suite. It is started while this module loads (top-level await), before the test file
//   is imported, and KOPF_TEST_CLUSTER is pointed at its kubeconfig, so `Clusters.selected()` —
//   every KopfRunner and harness — uses it. After the file's last test, the API server's audit log
//   of the tests' own requests (user kopf-admin) is read: a file that never reached the real server
//   (e.g. one that built an emulator by mistake) fails here; the counts go to
//   .reports/real-e2e-<run>.jsonl for the CI summary. Then it stops.
// - `kubeconfig:PATH` (kind, k3d, minikube, or one long-lived real control plane): every file uses
//   that cluster; what a file created is deleted after it (Sweep), so the next file finds the
//   cluster as the previous one did.
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { KubeClient } from "@kopf/client";
import { ClusterTarget } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { afterAll, expect, inject } from "vitest";
import * as AuditLog from "../../src/AuditLog.ts";
import * as Cluster from "../../src/Cluster.ts";
import * as Connection from "../../src/Connection.ts";
import * as Sweep from "../../src/Sweep.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The kubeconfig of the one control plane the "e2e-shared" project's files share (sharedCluster.ts). */
    sharedKubeconfig: string;
  }
}

const report = async (line: Record<string, unknown>) => {
  const reports = join(Cluster.repositoryRoot, ".reports");
  await mkdir(reports, { recursive: true });
  // One file per run of the tier (its main process, this worker's parent), so runs side by side
  // do not mix their lines.
  await appendFile(join(reports, `real-e2e-${process.ppid}.jsonl`), `${JSON.stringify(line)}\n`);
};

const testFile = () => relative(Cluster.repositoryRoot, expect.getState().testPath ?? "unknown");

const versionOf = (kubeconfig: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const connection = yield* Connection.fromKubeconfig(kubeconfig);
      const info = yield* connection.request("GET", "/version");
      connection.close();
      return (JSON.parse(info.text) as { gitVersion?: string }).gitVersion ?? "unknown";
    }),
  ).catch(() => "unknown");

const given = ClusterTarget.parse(process.env[ClusterTarget.ENV_VAR]);
// The "e2e-shared" project provides one cluster for all its files (sharedCluster.ts).
const provided = inject("sharedKubeconfig");
const shared =
  provided ??
  (Result.isSuccess(given) && given.success._tag === "Kubeconfig" ? given.success.path : undefined);
if (provided !== undefined) process.env[ClusterTarget.ENV_VAR] = `kubeconfig:${provided}`;

if (shared !== undefined) {
  const client = KubeClient.layer({ kubeconfig: { paths: shared } });
  const before = await Effect.runPromise(Sweep.snapshot.pipe(Effect.provide(client)));
  afterAll(async () => {
    const swept = await Effect.runPromise(Sweep.sweep(before).pipe(Effect.provide(client)));
    await report({ file: testFile(), version: await versionOf(shared), shared: true, swept });
  }, 120_000);
} else {
  const cluster = await Cluster.open(ClusterTarget.real);
  process.env[ClusterTarget.ENV_VAR] = `kubeconfig:${cluster.kubeconfig}`;
  afterAll(async () => {
    try {
      const text = await readFile(join(dirname(cluster.kubeconfig), "audit.log"), "utf8").catch(() => "");
      const summary = AuditLog.summarise(text);
      const file = testFile();
      // Asked only now: this request is audited too.
      await report({ file, version: await versionOf(cluster.kubeconfig), ...summary });
      expect(
        summary.requests,
        `${file} made no request to the real kube-apiserver: does it build an emulator instead of Clusters.selected()?`,
      ).toBeGreaterThan(0);
    } finally {
      await cluster.close();
    }
  }, 60_000);
}

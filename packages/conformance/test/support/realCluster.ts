// Setup file of the real-cluster tier's end-to-end project: each test file gets a fresh real
// control plane (etcd + kube-apiserver + controllers, scripts/real-apiserver.sh), as each
// KopfRunner gets a fresh emulator in the default suite. It is started while this module loads
// (top-level await), before the test file is imported, and KOPF_TEST_CLUSTER is pointed at its
// kubeconfig — so `Clusters.selected()`, and so every KopfRunner and harness, use it. After the
// file's last test, the API server's audit log of the tests' own requests (user kopf-admin) is
// read: a file that never reached the real server (e.g. one that built an emulator by mistake)
// fails here, and the counts go to .reports/real-e2e.jsonl for the CI summary. Then it stops.
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { ClusterTarget } from "@kopf/testing";
import { Effect } from "effect";
import { afterAll, expect } from "vitest";
import * as AuditLog from "../../src/AuditLog.ts";
import * as Cluster from "../../src/Cluster.ts";
import * as Connection from "../../src/Connection.ts";

const cluster = await Cluster.open(ClusterTarget.real);
process.env[ClusterTarget.ENV_VAR] = `kubeconfig:${cluster.kubeconfig}`;

afterAll(async () => {
  try {
    const text = await readFile(join(dirname(cluster.kubeconfig), "audit.log"), "utf8").catch(() => "");
    const summary = AuditLog.summarise(text);
    // Asked only now: this request is audited too.
    const version = await Effect.runPromise(
      Effect.gen(function* () {
        const connection = yield* Connection.fromKubeconfig(cluster.kubeconfig);
        const info = yield* connection.request("GET", "/version");
        connection.close();
        return (JSON.parse(info.text) as { gitVersion?: string }).gitVersion ?? "unknown";
      }),
    ).catch(() => "unknown");
    const file = relative(Cluster.repositoryRoot, expect.getState().testPath ?? "unknown");
    const reports = join(Cluster.repositoryRoot, ".reports");
    await mkdir(reports, { recursive: true });
    await appendFile(join(reports, "real-e2e.jsonl"), `${JSON.stringify({ file, version, ...summary })}\n`);
    expect(
      summary.requests,
      `${file} made no request to the real kube-apiserver: does it build an emulator instead of Clusters.selected()?`,
    ).toBeGreaterThan(0);
  } finally {
    await cluster.close();
  }
}, 60_000);

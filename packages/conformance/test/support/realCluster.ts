// Setup file of the real-cluster tier's end-to-end project: each test file gets a fresh real
// control plane (etcd + kube-apiserver + controllers, scripts/real-apiserver.sh), as each
// KopfRunner gets a fresh emulator in the default suite. It is started while this module loads
// (top-level await), before the test file is imported, and KOPF_TEST_CLUSTER is pointed at its
// kubeconfig — so `Clusters.selected()`, and so every KopfRunner and harness, use it — then
// stopped after the file's last test.

import { ClusterTarget } from "@kopf/testing";
import { afterAll } from "vitest";
import * as Cluster from "../../src/Cluster.ts";

const cluster = await Cluster.open(ClusterTarget.real);
process.env[ClusterTarget.ENV_VAR] = `kubeconfig:${cluster.kubeconfig}`;

afterAll(async () => {
  await cluster.close();
}, 60_000);

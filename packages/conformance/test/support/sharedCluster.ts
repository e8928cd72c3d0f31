// Global setup of the real tier's "e2e-shared" project: ONE real control plane for all its files,
// reached as any cluster given by a kubeconfig (as kind, k3d or minikube would be), so that CI
// proves the end-to-end files also run one after another on a long-lived cluster — each file
// leaving it as it found it (Sweep, in realCluster.ts). The kubeconfig goes to the files through
// vitest's provide/inject (`sharedKubeconfig`, declared in realCluster.ts), so the other projects
// keep their fresh control plane per file.

import { ClusterTarget } from "@kopf/testing";
import type { TestProject } from "vitest/node";
import * as Cluster from "../../src/Cluster.ts";

let cluster: Cluster.OpenCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  cluster = await Cluster.open(ClusterTarget.real);
  project.provide("sharedKubeconfig", cluster.kubeconfig);
}

export async function teardown(): Promise<void> {
  await cluster?.close();
}

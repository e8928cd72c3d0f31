/**
 * An emulator served over HTTPS with its kubeconfig written to a file, and the example CRD
 * (KopfExample) applied: a cluster the `kopf` process or the live client reach as any other.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorServer } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as kopf from "kopf";

const examples = join(dirname(fileURLToPath(import.meta.url)), "../../../../examples");

/** The running cluster, its kubeconfig file and that file's directory (for other files). */
export interface HttpsCluster {
  readonly cluster: Clusters.Built;
  readonly kubeconfig: string;
  readonly dir: string;
}

/**
 * Starts the cluster; close it with `cluster.close()`.
 *
 * @example
 * const { cluster, kubeconfig } = await httpsCluster("kopf-main-")
 */
export const httpsCluster = async (prefix: string): Promise<HttpsCluster> => {
  const cluster = await Clusters.build(Clusters.https());
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, "kubeconfig");
  const server = Context.get(cluster.context as unknown as Context.Context<EmulatorServer>, EmulatorServer);
  await Effect.runPromise(server.writeKubeconfig(kubeconfig));
  const setup = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
  await setup.apply(join(examples, "crd.yaml"));
  await setup.stop();
  return { cluster, kubeconfig, dir };
};

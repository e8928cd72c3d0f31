/** docs/guide/kubernetes-access.md: login handlers, and kubernetes-fluent-client on the operator's credentials. */
import { KfcBridge, KubeClient } from "@kopf/client";
import { Operator } from "@kopf/runtime";
import { Layer } from "effect";
import * as kopf from "kopf";
import { K8s, kind } from "kubernetes-fluent-client";

// block: login
kopf.on.login(function login_from_env() {
  const server = process.env.CLUSTER_SERVER;
  if (server === undefined) return null; // no credentials from this handler
  return { server, token: process.env.CLUSTER_TOKEN, caPath: process.env.CLUSTER_CA_PATH, priority: 100 };
});

// block: kfc
kopf.on.create("kopfexamples", async function create_child({ name, namespace }) {
  const metadata = { name: `${name}-child`, namespace: namespace ?? "default" };
  await K8s(kind.ConfigMap).Apply({ metadata, data: { owner: `${name}` } });
});

// block: start
export const start = (signal: AbortSignal) => {
  const registry = kopf.getDefaultRegistry();
  const client = KubeClient.layer({ login: Operator.login(registry) }); // the on.login handlers
  const kubeApi = KfcBridge.layer().pipe(Layer.provideMerge(client)); // K8s() follows the credentials
  return kopf.operator({ registry, namespaces: ["default"], kubeApi, signal });
};

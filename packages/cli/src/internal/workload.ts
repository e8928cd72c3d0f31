/**
 * The operator's workload: its Deployment (hardened, running `kopf run` with the liveness
 * endpoint its probes ask) and, with webhooks, the Service in front of the webhook server.
 */
import type { OperatorSettings } from "@kopf/settings";
import type { JsonObject } from "@kopf/structs";
import type { KubeObject, ManifestOptions } from "../Manifests.ts";

/** The path of the liveness endpoint. */
export const LIVENESS_PATH = "/healthz";

/** The uid of the `node` user of the official Node.js images. */
const NODE_UID = 1000;

const labelsOf = (name: string) => ({
  "app.kubernetes.io/name": name,
  "app.kubernetes.io/managed-by": "kopf",
});

/**
 * A Kubernetes object of a kind, named, in a namespace (`null`: cluster-scoped).
 *
 * @example
 * object("v1", "ServiceAccount", "my-operator", "ops", {})
 */
export const object = (
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string | null,
  rest: JsonObject,
): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace === null ? {} : { namespace }) },
  ...rest,
});

/** Seconds Kubernetes waits after SIGTERM: longer than the operator may take to stop. */
export const terminationGracePeriod = (settings: Pick<OperatorSettings, "process" | "queueing">): number =>
  Math.ceil(settings.process.ultimateExitingTimeout ?? settings.queueing.exitTimeout) + 30;

/**
 * The operator's Deployment.
 *
 * @example
 * deployment(options, settings, false).spec // { replicas: 1, strategy: { type: "Recreate" }, ... }
 */
export const deployment = (
  options: ManifestOptions,
  settings: OperatorSettings,
  admission: boolean,
): KubeObject => {
  const labels = labelsOf(options.name);
  const served = options.clusterwide
    ? ["--all-namespaces"]
    : options.namespaces.flatMap((ns) => ["--namespace", ns]);
  const liveness = `http://0.0.0.0:${options.livenessPort}${LIVENESS_PATH}`;
  const probe = { httpGet: { path: LIVENESS_PATH, port: "liveness" } };
  return object("apps/v1", "Deployment", options.name, options.operatorNamespace, {
    metadata: { name: options.name, namespace: options.operatorNamespace, labels },
    spec: {
      replicas: options.replicas,
      // One replica: never two at once (they would handle the same objects during a rollout).
      strategy: settings.scaling.mode === "single" ? { type: "Recreate" } : { type: "RollingUpdate" },
      selector: { matchLabels: { "app.kubernetes.io/name": options.name } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: options.name,
          terminationGracePeriodSeconds: terminationGracePeriod(settings),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: NODE_UID,
            runAsGroup: NODE_UID,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [
            {
              name: "operator",
              image: options.image,
              command: [...options.command],
              args: [...served, ...options.runArgs, "--liveness", liveness],
              env: [{ name: "POD_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
              ports: [
                { name: "liveness", containerPort: options.livenessPort },
                ...(admission ? [{ name: "webhooks", containerPort: options.webhookPort }] : []),
              ],
              // The endpoint answers once the startup handlers are done: the startup probe waits for it.
              startupProbe: { ...probe, periodSeconds: 5, failureThreshold: 60 },
              livenessProbe: { ...probe, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
              resources: {
                requests: { cpu: "100m", memory: "128Mi" },
                limits: { cpu: "1", memory: "512Mi" },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
              },
              // Node.js keeps its compile cache of the kopf bundle in the temporary directory (and
              // the TypeScript loader its compiled modules, with TypeScript handler files).
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    },
  });
};

/**
 * The Service of the webhook server: the same port as the pod's.
 *
 * @example
 * webhookService(options).spec // { selector, ports: [{ name: "webhooks", port: 9443, ... }] }
 */
export const webhookService = (options: ManifestOptions): KubeObject =>
  object("v1", "Service", options.name, options.operatorNamespace, {
    spec: {
      selector: { "app.kubernetes.io/name": options.name },
      // The same port as the pod's: the webhook server reports its URL with the port it listens on.
      ports: [{ name: "webhooks", port: options.webhookPort, targetPort: "webhooks" }],
    },
  });

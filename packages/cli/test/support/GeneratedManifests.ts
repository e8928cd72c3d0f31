// The manifests of the least-privilege proof's operator: what `kopf manifests` derives from its
// handlers, as objects.
import type * as kopf from "kopf";

/** What to derive the manifests from. */
export interface Options {
  readonly handlers: string;
  readonly namespace: string;
  readonly registry: kopf.Registry.Registry;
  readonly cwd: string;
}

const name = "kopf-least-privilege";

/** The manifests (ServiceAccount, roles, bindings, …) for the handler file, as objects. */
export const generate = async (options: Options): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const { namespace } = options;
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace },
      rules: [
        { apiGroups: ["kopf.dev"], resources: ["kopfpeerings"], verbs: ["list", "watch", "patch", "get"] },
        { apiGroups: [""], resources: ["events"], verbs: ["create"] },
        { apiGroups: ["kopf.dev"], resources: ["kopfexamples"], verbs: ["list", "watch", "patch"] },
        { apiGroups: ["kopf.dev"], resources: ["kopfexamples/status"], verbs: ["patch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          verbs: ["list", "watch"],
        },
        { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  ];
};
